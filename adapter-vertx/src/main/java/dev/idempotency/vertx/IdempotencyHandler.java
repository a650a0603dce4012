package dev.idempotency.vertx;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyEngine;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Guards Vert.x Web routes with an {@link IdempotencyEngine}: add it to the routes it protects,
 * after {@code BodyHandler}, and let the server hand requests to the router through
 * {@link #wrap}:
 *
 * <pre>{@code
 * IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
 * router.route().handler(BodyHandler.create());
 * router.post("/orders").handler(idempotency).handler(orders::create);
 * vertx.createHttpServer().requestHandler(idempotency.wrap(router)).listen(8080);
 * }</pre>
 *
 * <p>Route handlers stay as they are: the body they end the response with — {@code ctx.json(..)},
 * {@code ctx.end(..)}, {@code ctx.response().end(..)}, or a failure handler's answer — is copied on
 * its way out, and the final {@code end} is held back until the record is stored, so no retry can
 * run the handler again in between. Vert.x Web has no hook that sees the bytes a handler writes;
 * {@link #wrap} is what hands the router a response that copies them, and it is the one line this
 * handler costs outside the routes.
 *
 * <p>A success whose body is not copied — written in parts ({@code write(..)} chunks,
 * {@code send(ReadStream)}, {@code pipeTo(response)}), {@code sendFile}, or larger than the engine's
 * {@code maxStoredBodyBytes} — streams as usual and, once it has ended, is kept without its body
 * (a retry gets 410 {@code idempotency_response_not_stored}). The key is released for a request
 * that failed ({@code ctx.fail(..)}, a handler that threw), a reset, a file that could not be sent,
 * a {@code send(ReadStream)} whose source failed, and a connection that closed after part of the
 * body had gone out.
 *
 * <p>The event loop never waits for storage. Over an engine built on an
 * {@link dev.idempotency.core.store.AsyncStore} (such as idempotency-vertx-sql's {@code PgStore})
 * the engine's stages are used as they are, and the worker pools stay idle. Over a blocking
 * store the engine's steps run on two named worker pools —
 * one for the decision before the handler (which may wait for an in-flight twin when
 * {@code inFlightWait} is set), one for completing the record afterwards, so that waiting
 * duplicates can never starve the completion they wait for — and the request resumes on its own
 * context.
 */
public final class IdempotencyHandler implements Handler<RoutingContext> {

    /** The default worker pool name; the completion pool is named {@code idempotency-completion}. */
    public static final String DEFAULT_POOL_NAME = "idempotency";

    /** The default size of each worker pool, the size of Vert.x's own default worker pool. */
    public static final int DEFAULT_POOL_SIZE = 20;

    static final String MISSING_WRAP = "IdempotencyHandler cannot capture responses: start the server with "
            + "server.requestHandler(idempotency.wrap(router))";
    static final String MISSING_BODY = "IdempotencyHandler needs the request body: add BodyHandler.create() "
            + "before it on the route";

    private static final String EXECUTION_KEY = Execution.class.getName();
    private static final Logger log = LoggerFactory.getLogger(IdempotencyHandler.class);

    private final IdempotencyEngine engine;
    private final WorkerExecutor decisions;
    private final WorkerExecutor completions;

    private IdempotencyHandler(Vertx vertx, IdempotencyEngine engine, String poolName, int poolSize) {
        this.engine = Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(vertx, "vertx");
        Objects.requireNonNull(poolName, "poolName");
        if (poolSize <= 0) {
            throw new IllegalArgumentException("poolSize must be positive, was " + poolSize);
        }
        // A waiting duplicate sleeps on a decision thread for up to inFlightWait: tell the blocked
        // thread checker that this is expected, not a stuck store.
        long maxExecuteMillis = Math.max(TimeUnit.SECONDS.toMillis(60),
                engine.config().inFlightWait().plus(Duration.ofSeconds(30)).toMillis());
        this.decisions = vertx.createSharedWorkerExecutor(poolName, poolSize, maxExecuteMillis, TimeUnit.MILLISECONDS);
        this.completions = vertx.createSharedWorkerExecutor(poolName + "-completion", poolSize);
    }

    /** A handler for {@code engine} with worker pools named {@value #DEFAULT_POOL_NAME}, {@value #DEFAULT_POOL_SIZE} threads each. */
    public static IdempotencyHandler create(Vertx vertx, IdempotencyEngine engine) {
        return new IdempotencyHandler(vertx, engine, DEFAULT_POOL_NAME, DEFAULT_POOL_SIZE);
    }

    /**
     * A handler for {@code engine} whose storage calls run on the shared worker pools
     * {@code poolName} (decisions) and {@code poolName-completion} of {@code poolSize} threads each.
     */
    public static IdempotencyHandler create(Vertx vertx, IdempotencyEngine engine, String poolName, int poolSize) {
        return new IdempotencyHandler(vertx, engine, poolName, poolSize);
    }

    /**
     * The server's request handler: {@code server.requestHandler(idempotency.wrap(router))}. It
     * gives each request a response that can copy what the route handlers write; until this
     * handler arms it on a protected route it only passes every call through.
     */
    public Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> requestHandler) {
        Objects.requireNonNull(requestHandler, "requestHandler");
        return request -> requestHandler.handle(CapturingRequest.wrap(request));
    }

    @Override
    public void handle(RoutingContext ctx) {
        HttpServerResponse response = ctx.response();
        if (!(response instanceof CapturingResponse capturing)) {
            log.error(MISSING_WRAP);
            ctx.fail(500, new IllegalStateException(MISSING_WRAP));
            return;
        }
        if (capturing.isArmed()) {
            ctx.next(); // already guarded by an earlier IdempotencyHandler (or a reroute)
            return;
        }
        String method = ctx.request().method().name();
        if (!engine.config().covers(method)) {
            // Out of scope: the engine answers PassThrough without touching storage, so there is
            // nothing to take off the event loop.
            apply(ctx, capturing, engine.before(new RoutingContextView(ctx, method)));
            return;
        }
        if (!ctx.body().available()) {
            log.error(MISSING_BODY);
            ctx.fail(500, new IllegalStateException(MISSING_BODY));
            return;
        }
        RoutingContextView view = new RoutingContextView(ctx, method);
        run(decisions, capturing.context(), () -> engine.beforeAsync(view)).onComplete(ar -> {
            if (ar.succeeded()) {
                apply(ctx, capturing, ar.result());
            } else {
                ctx.fail(ar.cause());
            }
        });
    }

    /** Closes the worker pools (the engine is the caller's to close). */
    public Future<Void> close() {
        return Future.join(decisions.close(), completions.close()).mapEmpty();
    }

    /**
     * The {@link Execution} the request runs under, for a handler that needs what the store keeps
     * for it (the atomic mode's transaction, through {@link Execution#unwrap}); empty when the
     * request was passed through.
     */
    public static Optional<Execution> execution(RoutingContext ctx) {
        return Optional.ofNullable(ctx.get(EXECUTION_KEY));
    }

    private void apply(RoutingContext ctx, CapturingResponse response, Decision decision) {
        if (response.ended() || ctx.failed()) {
            // Answered while the decision was pending (a timeout handler, say): run nothing, hold nothing.
            if (decision instanceof Decision.Proceed proceed) {
                new Completion(engine, proceed.execution(), ctx, response, this::complete)
                        .failed(new IllegalStateException("answered before the handler could run"));
            }
            return;
        }
        if (decision instanceof Decision.Proceed proceed) {
            response.arm(engine.config().maxStoredBodyBytes(),
                    new Completion(engine, proceed.execution(), ctx, response, this::complete));
            ctx.put(EXECUTION_KEY, proceed.execution());
            ctx.next();
        } else if (decision instanceof Decision.Respond respond) {
            Completion.send(response, respond.reply());
        } else {
            ctx.next();
        }
    }

    /** Runs a finishing step of the engine (on the completion pool when it blocks); resumes on the request's context. */
    private <T> Future<T> complete(Context context, Supplier<CompletionStage<T>> step) {
        return run(completions, context, step);
    }

    /**
     * Runs an engine step: over a blocking store on {@code pool}, waiting for its (then already
     * complete) stage there; over an {@link dev.idempotency.core.store.AsyncStore} as the stage
     * itself, no worker involved. Either way the result is delivered on {@code context}.
     */
    private <T> Future<T> run(WorkerExecutor pool, Context context, Supplier<CompletionStage<T>> step) {
        if (engine.blocksCaller()) {
            return offload(pool, context, () -> step.get().toCompletableFuture().join());
        }
        CompletionStage<T> stage;
        try {
            stage = step.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
        return Future.fromCompletionStage(stage, context);
    }

    /**
     * Runs {@code task} on {@code pool} without ordering, its result delivered on {@code context}.
     * A worker executor delivers on the caller's context, so a call from elsewhere (a handler that
     * ends the response from a thread of its own) hops onto the request's context first.
     */
    private static <T> Future<T> offload(WorkerExecutor pool, Context context, Callable<T> task) {
        if (Vertx.currentContext() == context) {
            return submit(pool, task);
        }
        Promise<T> promise = Promise.promise();
        context.runOnContext(v -> submit(pool, task).onComplete(promise));
        return promise.future();
    }

    /** A closed pool throws instead of failing the future; callers get a failed future either way. */
    private static <T> Future<T> submit(WorkerExecutor pool, Callable<T> task) {
        try {
            return pool.executeBlocking(task, false);
        } catch (RuntimeException rejected) {
            return Future.failedFuture(rejected);
        }
    }
}
