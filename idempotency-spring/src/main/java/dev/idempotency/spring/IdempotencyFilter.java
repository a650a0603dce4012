package dev.idempotency.spring;

import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Decision;
import dev.idempotency.core.Execution;
import dev.idempotency.core.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.RequestPaths;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import org.springframework.web.util.WebUtils;

/**
 * The engine in front of Spring MVC: {@link IdempotencyEngine#before} when the request arrives;
 * for a request that goes ahead, the rest of the chain with the response held in a
 * {@link ContentCachingResponseWrapper}, so that the exact bytes are stored
 * ({@link Execution#finish}) before any of them reaches the client; {@link Execution#fail} when the
 * chain throws.
 *
 * <p>Not captured, and therefore never stored (the key is released): a response whose handler
 * went asynchronous ({@code Callable}, {@code DeferredResult}, {@code StreamingResponseBody},
 * server-sent events) — it is written after this filter returns.
 */
final class IdempotencyFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);
    private static final AntPathMatcher ANT = new AntPathMatcher();
    private static final String UNREADABLE_BODY = IdempotencyFilter.class.getName() + ".unreadableBody";

    private final IdempotencyEngine engine;
    private final List<String> paths;
    private final TransactionJoin transactions;

    IdempotencyFilter(IdempotencyEngine engine, List<String> paths, TransactionJoin transactions) {
        this.engine = engine;
        this.paths = List.copyOf(paths);
        this.transactions = transactions;
    }

    /** For tests: whether the atomic mode's transaction is joined ({@link TransactionJoin#NONE}: never). */
    TransactionJoin transactions() {
        return transactions;
    }

    /** The asynchronous dispatch writes into the wrapper of the first one: it must be copied out then. */
    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    /** Only to answer an unreadable body on the error dispatch the container makes for it; see {@link #unreadable}. */
    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getDispatcherType() == DispatcherType.ERROR) {
            if (request.getAttribute(UNREADABLE_BODY) instanceof HttpReply reply) {
                Replies.write(reply, response);
            } else {
                chain.doFilter(request, response);
            }
            return;
        }
        if (isAsyncDispatch(request)) {
            // The key was released when the first dispatch went asynchronous; only the bytes are left to send.
            try {
                chain.doFilter(request, response);
            } finally {
                ContentCachingResponseWrapper held = WebUtils.getNativeResponse(response, ContentCachingResponseWrapper.class);
                if (held != null && !isAsyncStarted(request)) {
                    held.copyBodyToResponse();
                }
            }
            return;
        }
        if (!engine.config().covers(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        DispatchedPath path = DispatchedPath.of(request);
        if (!covered(path)) {
            chain.doFilter(request, response);
            return;
        }
        BufferedBodyRequest buffered = new BufferedBodyRequest(request, engine.config().maxRequestBodyBytes());
        SpringRequestView view = new SpringRequestView(buffered, path);
        Decision decision;
        try {
            decision = path.trailingSlash() && view.header(engine.config().headerName()) != null
                    ? engine.reject(view, ProblemCode.IDEMPOTENCY_PATH_INVALID,
                            "Spring MVC does not route a path with a trailing slash to the path without it")
                    : engine.before(view);
        } catch (SpringRequestView.UnreadableBody e) {
            unreadable(request, response, e);
            return;
        }
        if (decision instanceof Decision.Respond respond) {
            Replies.write(respond.reply(), response);
            return;
        }
        if (!(decision instanceof Decision.Proceed proceed)) {
            chain.doFilter(buffered, response);
            return;
        }
        Execution execution = proceed.execution();
        request.setAttribute(IdempotentRequests.EXECUTION, execution);
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        boolean rollbackOnly;
        try (TransactionJoin.Joined joined = transactions.join(execution)) {
            chain.doFilter(buffered, captured);
            rollbackOnly = joined.rollbackOnly();
        } catch (IOException | ServletException | RuntimeException | Error e) {
            execution.fail(e);
            throw e;
        }
        if (rollbackOnly) {
            // A @Transactional method that took part failed: nothing of the request is committed or stored.
            execution.fail(new IllegalStateException("the transaction was marked rollback-only"));
            if (captured.getStatus() >= 400) {
                // The application answered the failure itself (an exception handler's 4xx or 5xx): as in
                // Spring, its answer stands — unstored, so a retry runs again.
                captured.copyBodyToResponse();
                return;
            }
            // It answered as if it had succeeded: as Spring would (UnexpectedRollbackException), a 500.
            captured.reset();
            Replies.write(engine.problem("idempotency_transaction_rolled_back", "Transaction rolled back", 500,
                    "A transactional step failed; nothing of this request was committed").toReply(), response);
            return;
        }
        if (isAsyncStarted(request)) {
            // The response is written later, past this filter: nothing to store, the key is released.
            log.debug("Asynchronous response for key_preview={}; it is not captured", execution.key().keyPreview());
            execution.finish(CapturedResponse.uncaptured(captured.getStatus(), headersOf(captured)));
            return; // the asynchronous dispatch copies the body out of the wrapper
        }
        Optional<HttpReply> instead;
        try {
            instead = execution.finish(CapturedResponse.of(captured.getStatus(), headersOf(captured),
                    captured.getContentAsByteArray()));
        } catch (RuntimeException e) {
            log.warn("Could not hand the response for key_preview={} to the engine", execution.key().keyPreview(), e);
            execution.fail(e);
            instead = Optional.empty();
        }
        if (instead.isPresent() && !response.isCommitted()) {
            captured.reset(); // drops the handler's body and headers; the engine's reply replaces them
            Replies.write(instead.get(), response);
        } else {
            captured.copyBodyToResponse();
        }
    }

    /**
     * A keyed request whose body could not be read (shorter than its {@code Content-Length}, broken
     * chunked framing): the client's fault, answered 400 as Spring MVC answers it without a key, and
     * logged at DEBUG without a stack trace, which a client could otherwise flood the logs with.
     * Tomcat has already called {@code sendError(400)} on the failed read, which discards what is
     * written now and dispatches to the error page; the reply is written there instead.
     */
    private void unreadable(HttpServletRequest request, HttpServletResponse response, RuntimeException e)
            throws IOException {
        log.debug("Request body could not be read; answered 400: {}", String.valueOf(e.getCause()));
        HttpReply reply = engine.problem(ProblemCode.IDEMPOTENCY_REQUEST_BODY_UNREADABLE, null).toReply();
        request.setAttribute(UNREADABLE_BODY, reply);
        Replies.write(reply, response);
    }

    /**
     * The patterns are matched against the path the record is filed under, so coverage and the
     * record come from the same string; a path that names no record is matched as it is, and, when
     * covered, handed to the engine, which refuses it under a key.
     */
    private boolean covered(DispatchedPath path) {
        String matched = RequestPaths.normalize(path.path()).orElse(path.path());
        for (String pattern : paths) {
            if (ANT.match(pattern, matched)) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, List<String>> headersOf(HttpServletResponse response) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : response.getHeaderNames()) {
            headers.computeIfAbsent(name, n -> new ArrayList<>(response.getHeaders(n)));
        }
        if (response.getContentType() != null
                && headers.keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
            headers.put("Content-Type", List.of(response.getContentType()));
        }
        return headers;
    }
}
