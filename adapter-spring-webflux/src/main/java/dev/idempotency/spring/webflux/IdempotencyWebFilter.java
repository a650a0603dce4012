package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.framework.internal.Exchange;
import dev.idempotency.spring.internal.CoveredPaths;
import dev.idempotency.spring.internal.DispatchedPath;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The engine in front of Spring WebFlux, over its asynchronous face: {@link IdempotencyEngine#beforeAsync}
 * once the principal is known and a keyed request's body is read (at most the engine's
 * {@code maxRequestBodyBytes} and one byte); for a request that goes ahead, the rest of the chain
 * with the body served again ({@link BufferedRequest}) and the response held ({@link CapturingResponse}),
 * so its exact bytes are stored before any of them reaches the client. A handler that fails fails
 * the execution: nothing is stored, the key is released. An exchange cancelled before its response
 * was stored (the client went away) abandons it: nothing is stored, and as work the handler started
 * may still run, the key stays in flight until its lease ends.
 *
 * <p>In the atomic mode on R2DBC the chain runs inside the reservation's transaction
 * ({@link R2dbcTransactionJoin}, with spring-r2dbc): the handler's writes commit with the stored
 * response, or roll back with it when the handler fails or marks the transaction rollback-only.
 *
 * <p>No event loop waits for storage: over a blocking store the engine's calls run on bounded
 * elastic schedulers ({@link EngineSteps}), and the chain goes on on the thread that decided.
 */
final class IdempotencyWebFilter implements WebFilter, Ordered, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyWebFilter.class);
    private static final int PENDING = 0;
    private static final int HANDED_ON = 1;
    private static final int CANCELLED = 2;

    private final IdempotencyEngine engine;
    private final CoveredPaths paths;
    private final int order;
    private final EngineSteps steps;
    private final ReactiveTransactionJoin join;
    private final ServerCodecConfigurer codecs;

    IdempotencyWebFilter(IdempotencyEngine engine, List<String> paths, int order) {
        this(engine, paths, order, ReactiveTransactionJoin.NONE, ServerCodecConfigurer.create());
    }

    /**
     * @param join   how the handler joins the atomic mode's transaction ({@link ReactiveTransactionJoin#NONE}: not at all)
     * @param codecs the application's, to parse a held multipart body again
     */
    IdempotencyWebFilter(IdempotencyEngine engine, List<String> paths, int order, ReactiveTransactionJoin join,
                         ServerCodecConfigurer codecs) {
        this.engine = engine;
        this.paths = new CoveredPaths(paths);
        this.order = order;
        this.steps = new EngineSteps(engine);
        this.join = join;
        this.codecs = codecs;
    }

    /** Stops the schedulers of a blocking store's calls (the engine is its owner's to close). */
    @Override
    public void close() {
        steps.close();
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (!engine.config().covers(request.getMethod().name())) {
            return chain.filter(exchange);
        }
        DispatchedPath path = DispatchedPath.of(request.getPath().pathWithinApplication());
        if (!paths.covers(path)) {
            return chain.filter(exchange);
        }
        boolean keyed = request.getHeaders().containsHeader(engine.config().headerName());
        return exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty())
                .flatMap(principal -> keyed && path.refusal() == null
                        ? keyed(exchange, chain, path, principal.orElse(null))
                        : unkeyed(exchange, chain, new ExchangeRequestView(exchange, path, principal.orElse(null), null),
                                keyed ? path.refusal() : null));
    }

    /**
     * Without a key the engine passes the request through, or refuses it when keys are required,
     * without storage; with a key on a path {@link DispatchedPath#refusal() refused} under one (a
     * trailing slash, {@code ;parameters}) it is refused. Decided where it is.
     */
    private Mono<Void> unkeyed(ServerWebExchange exchange, WebFilterChain chain, ExchangeRequestView view,
                               String refusal) {
        Mono<Decision> decision = refusal != null
                ? Mono.just(engine.reject(view, ProblemCode.IDEMPOTENCY_PATH_INVALID, refusal))
                : Mono.fromCompletionStage(() -> engine.beforeAsync(view)); // no key: no storage
        return decision.flatMap(decided -> decided instanceof Decision.Respond respond
                ? Replies.write(respond.reply(), exchange.getResponse())
                : chain.filter(exchange));
    }

    private Mono<Void> keyed(ServerWebExchange exchange, WebFilterChain chain, DispatchedPath path, Principal principal) {
        boolean form = BufferedExchange.isForm(exchange.getRequest());
        Mono<byte[]> body = form
                ? BufferedExchange.formBody(exchange)
                : BufferedRequest.read(exchange.getRequest(), engine.config().maxRequestBodyBytes());
        return body.onErrorResume(error -> Replies.write(unread(error, form), exchange.getResponse()).then(Mono.empty()))
                .flatMap(bytes -> {
                    ExchangeRequestView view = new ExchangeRequestView(exchange, path, principal, bytes);
                    BufferedExchange buffered = new BufferedExchange(exchange.mutate()
                            .request(new BufferedRequest(exchange.getRequest(), bytes, exchange.getResponse().bufferFactory()))
                            .build(), codecs);
                    // WebFlux deletes the parts of its own exchange only: these are deleted here.
                    return Mono.usingWhen(Mono.just(buffered),
                            b -> decide(view).flatMap(decision -> apply(decision, b, chain)),
                            BufferedExchange::cleanupMultipart, (b, e) -> b.cleanupMultipart(),
                            BufferedExchange::cleanupMultipart);
                });
    }

    /**
     * The answer to a keyed request whose body could not be read: 413 for a form larger than the
     * codecs read, else 400 (also when a filter in front read the body first, which is logged).
     */
    private HttpReply unread(Throwable error, boolean form) {
        log.debug("Request body could not be read: {}", error.getClass().getName());
        if (error instanceof BufferedRequest.ReadBefore) {
            log.warn("A filter in front of the idempotency filter read the request body; the request is refused");
            return engine.problem(ProblemCode.IDEMPOTENCY_REQUEST_BODY_UNREADABLE,
                    "The request body was read before it could be fingerprinted").toReply();
        }
        if (error instanceof DataBufferLimitException) {
            return engine.problem(ProblemCode.IDEMPOTENCY_REQUEST_TOO_LARGE,
                    "The form exceeds the size the application's codecs read").toReply();
        }
        return engine.problem(ProblemCode.IDEMPOTENCY_REQUEST_BODY_UNREADABLE,
                form ? "The request body could not be read as a URL-encoded form" : null).toReply();
    }

    /**
     * The engine's decision. Should the exchange be cancelled before the decision is handed on, a
     * reservation it took is released (the handler never ran); once handed on, its {@link Exchange}
     * answers for it.
     */
    private Mono<Decision> decide(ExchangeRequestView view) {
        AtomicInteger state = new AtomicInteger(PENDING);
        AtomicReference<CompletionStage<Decision>> started = new AtomicReference<>();
        return steps.decide(() -> {
            CompletionStage<Decision> decision = engine.beforeAsync(view);
            started.set(decision);
            if (state.get() == CANCELLED) {
                releaseWhenReserved(decision);
            }
            return decision;
        }).doOnNext(decision -> state.compareAndSet(PENDING, HANDED_ON)).doOnCancel(() -> {
            if (state.compareAndSet(PENDING, CANCELLED)) {
                CompletionStage<Decision> decision = started.get();
                if (decision != null) {
                    releaseWhenReserved(decision);
                }
            }
        });
    }

    /** Releases the reservation of a decision nobody waits for any more (at most once: executions decide once). */
    private void releaseWhenReserved(CompletionStage<Decision> decision) {
        decision.thenAccept(decided -> {
            if (decided instanceof Decision.Proceed proceed) {
                exchange(proceed.execution()).fail(new CancellationException("cancelled while the decision was pending"));
            }
        });
    }

    private Mono<Void> apply(Decision decision, ServerWebExchange exchange, WebFilterChain chain) {
        if (decision instanceof Decision.Respond respond) {
            return Replies.write(respond.reply(), exchange.getResponse());
        }
        if (!(decision instanceof Decision.Proceed proceed)) {
            return chain.filter(exchange);
        }
        Execution execution = proceed.execution();
        ReactiveTransactionJoin.Joined joined = join.join(execution);
        Exchange held = exchange(execution);
        CapturingResponse response = new CapturingResponse(exchange.getResponse(), held, joined::rollbackOnly);
        ServerWebExchange guarded = exchange.mutate().response(response).build();
        guarded.getAttributes().put(IdempotentExchanges.EXECUTION, execution);
        return joined.around(chain.filter(guarded))
                .onErrorResume(e -> CapturingResponse.mono(held.fail(e)).then(Mono.error(e)))
                // A handler that completed without writing or completing the response: finished as it is.
                .then(Mono.defer(() -> held.decided() ? Mono.<Void>empty() : response.setComplete()))
                .doOnCancel(held::abandon); // the client went away: the handler's work may still run
    }

    /** The lifecycle of {@code execution}, its steps through {@link EngineSteps}. */
    private Exchange exchange(Execution execution) {
        return new Exchange(engine, execution, step -> steps.complete(step).toFuture());
    }
}
