package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.adapter.RequestPaths;
import dev.idempotency.core.adapter.ThreadTransaction;
import dev.idempotency.framework.internal.Exchange;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine around one resource method: the request filter asks it before the method runs (a
 * replay or a problem aborts the request), the response filter finishes a response without an
 * entity; one with an entity is finished by {@link IdempotencyWriter}. When the atomic mode's
 * transaction is bound to the request's thread ({@link ThreadTransaction}: JTA's), an asynchronous
 * resource method is refused before it runs, and a transaction marked rollback-only is rolled back
 * ({@link Exchange#rolledBack}).
 */
final class IdempotencyFilter implements IdempotencyFeature.Filters {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);

    /** The request property holding the {@link Exchange} of a request the engine let through. */
    static final String EXCHANGE = Exchange.class.getName();
    /** The request property holding its response context once the response filter saw it. */
    static final String RESPONSE = IdempotencyFilter.class.getName() + ".response";

    /** Reactive return types, by name: the resource answers when they complete. */
    private static final Set<String> REACTIVE = Set.of("io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi",
            "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher");

    private final IdempotencyEngine engine;
    private final PathPatterns paths;
    private final boolean asynchronous;

    /**
     * {@code paths}: the patterns a request's path must match; {@code null}: every request.
     * {@code asynchronous}: whether the resource method answers on another thread.
     */
    IdempotencyFilter(IdempotencyEngine engine, PathPatterns paths, boolean asynchronous) {
        this.engine = engine;
        this.paths = paths;
        this.asynchronous = asynchronous;
    }

    /**
     * Whether {@code method} answers on another thread: it takes an {@code AsyncResponse}
     * ({@code @Suspended}), or returns a {@link CompletionStage} or a reactive type (Mutiny's
     * {@code Uni} or {@code Multi}, a {@code Publisher}).
     */
    static boolean asynchronous(Method method) {
        if (Arrays.asList(method.getParameterTypes()).contains(AsyncResponse.class)
                || CompletionStage.class.isAssignableFrom(method.getReturnType())) {
            return true;
        }
        for (Class<?> type = method.getReturnType(); type != null && type != Object.class; type = type.getSuperclass()) {
            if (REACTIVE.contains(type.getName())
                    || Arrays.stream(type.getInterfaces()).anyMatch(i -> REACTIVE.contains(i.getName()))) {
                return true;
            }
        }
        return false;
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
            Exchange exchange = new Exchange(engine, proceed.execution());
            if (asynchronous && proceed.execution().unwrap(ThreadTransaction.class).isPresent()) {
                exchange.refuseAsynchronous().join().ifPresent(reply -> request.abortWith(Replies.response(reply)));
                return;
            }
            request.setProperty(EXCHANGE, exchange);
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
        Exchange exchange = exchange(request.getProperty(EXCHANGE));
        if (exchange == null || exchange.decided()) {
            return;
        }
        request.setProperty(RESPONSE, response);
        Optional<HttpReply> instead;
        if (exchange.execution().unwrap(ThreadTransaction.class).filter(ThreadTransaction::rollbackOnly).isPresent()) {
            instead = exchange.rolledBack(response.getStatus()).join();
        } else if (response.hasEntity()) {
            return;
        } else {
            instead = exchange.finish(CapturedResponse.of(response.getStatus(), Replies.strings(response.getHeaders()),
                    new byte[0])).join();
        }
        instead.ifPresent(reply -> {
            response.setStatus(reply.status());
            Replies.replaceHeaders(response.getHeaders(), reply);
            response.setEntity(Replies.entity(reply));
        });
    }

    static Exchange exchange(Object property) {
        return property instanceof Exchange exchange ? exchange : null;
    }

    /**
     * The runtime is about to answer {@code exception}: its answer to an {@code AsyncResponse} timeout
     * abandons the key (the resource runs on); any other answer — a mapper's 2xx included — is
     * finished as the filters see it.
     */
    static void raised(Exchange exchange, Throwable exception) {
        if (!exchange.decided() && AsyncTimeouts.isRuntimeTimeout(exception)) {
            exchange.abandon().join();
        }
    }

    /**
     * The request ended before its exchange was decided ({@link Exchange#ended}): after an exception
     * nothing mapped, the key is released; a response ({@code seen}) that went out unseen by the writer
     * counts as sent; a request whose response never reached the filters — the client went away and
     * the runtime dropped it, or cancelled the resource's {@code CompletionStage} or {@code Uni} —
     * abandons the key.
     */
    static void ended(Exchange exchange, ContainerResponseContext seen, Throwable failure) {
        if (!exchange.decided()) {
            exchange.ended(failure, seen == null ? null
                    : CapturedResponse.uncaptured(seen.getStatus(), Replies.strings(seen.getHeaders()))).join();
        }
    }
}
