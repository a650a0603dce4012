package dev.idempotency.spring;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.framework.internal.Exchange;
import dev.idempotency.framework.servlet.BufferedBodyRequest;
import dev.idempotency.framework.servlet.ServletResponses;
import dev.idempotency.spring.internal.CoveredPaths;
import dev.idempotency.spring.internal.DispatchedPath;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * The engine in front of Spring MVC: {@link IdempotencyEngine#before} when the request arrives;
 * for a request that goes ahead, the rest of the chain with the response held in a
 * {@link CapturingResponse}, so that the exact bytes are stored ({@link Exchange#finish}) before
 * any of them reaches the client; {@link Exchange#fail} when the chain throws.
 *
 * <p>A handler that goes asynchronous ({@code Callable}, {@code DeferredResult}, {@code WebAsyncTask},
 * {@code CompletableFuture}, SSE, {@code StreamingResponseBody}) keeps its key reserved until its
 * response is complete ({@link AsyncCompletion}); a streamed body passes through as it is written and
 * is kept without its body. In the atomic mode with a joined transaction it is refused
 * ({@link AtomicAsyncRefusal}): 500 {@code idempotency_async_not_atomic}.
 */
final class IdempotencyFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);
    private static final String UNREADABLE_BODY = IdempotencyFilter.class.getName() + ".unreadableBody";

    private final IdempotencyEngine engine;
    private final CoveredPaths paths;
    private final TransactionJoin transactions;

    IdempotencyFilter(IdempotencyEngine engine, List<String> paths, TransactionJoin transactions) {
        this.engine = engine;
        this.paths = new CoveredPaths(paths);
        this.transactions = transactions;
    }

    /** For tests: whether the atomic mode's transaction is joined ({@link TransactionJoin#NONE}: never). */
    TransactionJoin transactions() {
        return transactions;
    }

    /** The asynchronous dispatch writes the handler's result: the execution is finished then. */
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
                ServletResponses.write(reply, response);
            } else {
                chain.doFilter(request, response);
            }
            return;
        }
        if (isAsyncDispatch(request)) {
            AsyncCompletion pending = AsyncCompletion.of(request);
            if (pending == null) {
                chain.doFilter(request, response);
            } else {
                pending.dispatch(request, response, chain);
            }
            return;
        }
        if (!engine.config().covers(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        DispatchedPath path = dispatchedPath(request);
        if (!paths.covers(path)) {
            chain.doFilter(request, response);
            return;
        }
        BufferedBodyRequest buffered = new BufferedBodyRequest(request, engine.config().maxRequestBodyBytes());
        SpringRequestView view = new SpringRequestView(buffered, path);
        Decision decision;
        try {
            decision = path.refusal() != null && view.header(engine.config().headerName()) != null
                    ? engine.reject(view, ProblemCode.IDEMPOTENCY_PATH_INVALID, path.refusal())
                    : engine.before(view);
        } catch (SpringRequestView.UnreadableBody e) {
            unreadable(request, response, e);
            return;
        }
        if (decision instanceof Decision.Respond respond) {
            ServletResponses.write(respond.reply(), response);
            return;
        }
        if (!(decision instanceof Decision.Proceed proceed)) {
            chain.doFilter(buffered, response);
            return;
        }
        Execution execution = proceed.execution();
        request.setAttribute(IdempotentRequests.EXECUTION, execution);
        Exchange exchange = new Exchange(engine, execution);
        CapturingResponse captured = new CapturingResponse(response, request);
        AtomicAsyncRefusal refusal = null;
        boolean rollbackOnly;
        try (TransactionJoin.Joined joined = transactions.join(execution)) {
            if (joined.inForce()) {
                refusal = AtomicAsyncRefusal.register(request);
            }
            chain.doFilter(buffered, captured);
            rollbackOnly = joined.rollbackOnly();
        } catch (IOException | ServletException | RuntimeException | Error e) {
            if (refusal != null && refusal.refused()) {
                refuseAsync(exchange, captured, response);
                return;
            }
            exchange.fail(e).join();
            throw e;
        }
        if (refusal != null && refusal.refused()) {
            refuseAsync(exchange, captured, response); // an exception handler of the application answered
            return;
        }
        if (rollbackOnly) { // a @Transactional method that took part failed
            captured.send(exchange.rolledBack(captured.getStatus()).join());
        } else if (request.isAsyncStarted()) { // Spring MVC's asynchronous handlers, and any servlet's
            AsyncCompletion.await(request, exchange, captured); // the key stays reserved until the response ends
        } else {
            captured.send(exchange.finish(captured.capturedResponse()).join());
        }
    }

    /** The atomic mode's transaction cannot follow the handler to another thread: rolled back, and said so. */
    private static void refuseAsync(Exchange exchange, CapturingResponse captured, HttpServletResponse response)
            throws IOException {
        Optional<HttpReply> problem = exchange.refuseAsynchronous().join();
        captured.reset();
        if (problem.isPresent()) {
            ServletResponses.write(problem.get(), response);
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
        ServletResponses.write(reply, response);
    }

    /** What Spring MVC's handler mapping matches ({@link DispatchedPath}). */
    private static DispatchedPath dispatchedPath(HttpServletRequest request) {
        try {
            return DispatchedPath.of(ServletRequestPathUtils.parse(request).pathWithinApplication());
        } catch (IllegalArgumentException malformed) {
            // A segment that does not decode; Spring MVC fails on it too. Core refuses the raw path.
            return DispatchedPath.raw(request.getRequestURI());
        }
    }
}
