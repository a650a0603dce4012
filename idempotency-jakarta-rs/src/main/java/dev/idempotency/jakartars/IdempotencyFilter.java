package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.adapter.RequestPaths;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine around one resource method: the request filter asks it before the method runs (a
 * replay or a problem aborts the request), the response filter finishes a response without an
 * entity; one with an entity is finished by {@link IdempotencyWriter}.
 */
final class IdempotencyFilter implements ContainerRequestFilter, ContainerResponseFilter {

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
        if (!engine.config().covers(request.getMethod())) {
            return;
        }
        JakartaRequestView view = new JakartaRequestView(request, engine.config().maxRequestBodyBytes());
        if (!covered(view.path())) {
            return;
        }
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

    /**
     * Whether the path the record is filed under matches the patterns. A path that names no record
     * (a dot segment, an escaped unreserved character, a malformed escape) is covered whatever the
     * patterns: runtimes resolve such a path differently before they match their resources (Quarkus
     * REST sends {@code /%6Frders} and {@code /x/%2E%2E/orders} to {@code /orders}), so its spelling
     * does not tell which resource it reaches. The engine refuses it under a key and lets it through
     * without one.
     */
    private boolean covered(String path) {
        if (paths == null) {
            return true;
        }
        return RequestPaths.normalize(path).map(paths::matches).orElse(true);
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
            response.setEntity(Replies.entity(reply));
        });
    }
}
