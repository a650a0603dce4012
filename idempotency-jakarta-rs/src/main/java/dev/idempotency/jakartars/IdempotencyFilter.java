package dev.idempotency.jakartars;

import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Decision;
import dev.idempotency.core.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.RequestPaths;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine around one resource method: the request filter asks it before the method runs (a
 * replay or a problem aborts the request), the response filter finishes a response without an
 * entity, and the writer interceptor holds the entity's bytes as the writer produces them, hands
 * them to the engine, and only then writes them (or the engine's reply instead), inside any entity
 * coder: the bytes stored are the writer's, and each answer is encoded for its own request.
 *
 * <p>A response that cannot be held whole — larger than {@code maxStoredBodyBytes}, or a
 * {@link StreamingOutput} that flushes — goes to the client as it is written and is finished
 * uncaptured once written: a retry gets 410, the resource never runs twice. A writer that fails
 * before any byte went out releases the key; after, the response counts as sent.
 */
final class IdempotencyFilter implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);

    private final IdempotencyEngine engine;
    private final PathPatterns paths;

    /** {@code paths}: the patterns a request's path must match; {@code null}: every request. */
    IdempotencyFilter(IdempotencyEngine engine, PathPatterns paths) {
        this.engine = engine;
        this.paths = paths;
    }

    IdempotencyEngine engine() {
        return engine;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (!engine.config().covers(request.getMethod()) || !covered(request)) {
            return;
        }
        JakartaRequestView view = new JakartaRequestView(request, engine.config().maxRequestBodyBytes());
        Decision decision;
        try {
            decision = view.hasPathParameters() && view.header(engine.config().headerName()) != null
                    ? engine.reject(view, ProblemCode.IDEMPOTENCY_PATH_INVALID, RequestPaths.PATH_PARAMETERS)
                    : engine.before(view);
        } catch (UncheckedIOException e) {
            log.debug("Request body could not be read; answered 400: {}", String.valueOf(e.getCause()));
            request.abortWith(Replies.response(
                    engine.problem(ProblemCode.IDEMPOTENCY_REQUEST_BODY_UNREADABLE, null).toReply()));
            return;
        }
        if (decision instanceof Decision.Respond respond) {
            request.abortWith(Replies.response(respond.reply()));
        } else if (decision instanceof Decision.Proceed proceed) {
            request.setProperty(Exchange.PROPERTY, new Exchange(proceed.execution()));
        }
    }

    private boolean covered(ContainerRequestContext request) {
        if (paths == null) {
            return true;
        }
        String path = JakartaRequestView.dispatchedPath(request.getUriInfo());
        return paths.matches(RequestPaths.normalize(path).orElse(path));
    }

    /** A response without an entity is finished here; one with an entity once it is written. */
    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Exchange exchange = Exchange.of(request.getProperty(Exchange.PROPERTY));
        if (exchange == null || exchange.done()) {
            return;
        }
        exchange.response = response;
        if (response.hasEntity()) {
            return;
        }
        Optional<HttpReply> instead = exchange.finish(
                CapturedResponse.of(response.getStatus(), Replies.strings(response.getHeaders()), new byte[0]));
        instead.ifPresent(reply -> {
            response.setStatus(reply.status());
            Replies.replaceHeaders(response.getHeaders(), reply);
            response.setEntity(reply.body());
        });
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        Exchange exchange = Exchange.of(context.getProperty(Exchange.PROPERTY));
        if (exchange == null || exchange.done() || exchange.response == null) {
            context.proceed();
            return;
        }
        OutputStream wire = context.getOutputStream();
        CapturingStream capture = new CapturingStream(wire, engine.config().maxStoredBodyBytes(),
                context.getEntity() instanceof StreamingOutput);
        context.setOutputStream(capture);
        try {
            context.proceed();
        } catch (IOException | RuntimeException | Error e) {
            if (capture.passedOn()) {
                // Part of it reached the client: the resource ran, and must not run again.
                exchange.finish(CapturedResponse.uncaptured(exchange.response.getStatus(), headers(context)));
            } else {
                exchange.fail(e);
            }
            throw e;
        } finally {
            context.setOutputStream(wire); // the runtime closes the stream it gave, an entity coder's included
        }
        int status = exchange.response.getStatus();
        if (capture.passedOn()) {
            exchange.finish(CapturedResponse.uncaptured(status, headers(context)));
            return;
        }
        byte[] body = capture.bytes();
        Optional<HttpReply> instead = exchange.finish(CapturedResponse.of(status, headers(context), body));
        if (instead.isPresent()) {
            HttpReply reply = instead.get();
            exchange.response.setStatus(reply.status());
            Replies.replaceHeadersKeepingEncoding(context.getHeaders(), reply);
            body = reply.body();
        }
        capture.release(body);
    }

    /** The headers as they will be sent, with the entity's media type. */
    private static Map<String, List<String>> headers(WriterInterceptorContext context) {
        MultivaluedMap<String, Object> headers = context.getHeaders();
        Map<String, List<String>> strings = Replies.strings(headers);
        if (!headers.containsKey(HttpHeaders.CONTENT_TYPE) && context.getMediaType() != null) {
            strings.put(HttpHeaders.CONTENT_TYPE, List.of(context.getMediaType().toString()));
        }
        return strings;
    }
}
