package dev.idempotency.core;

import dev.idempotency.core.engine.Admission;
import dev.idempotency.core.engine.Answers;
import dev.idempotency.core.engine.Callers;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.engine.EngineScheduler;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.engine.Flow;
import dev.idempotency.core.engine.LostReservations;
import dev.idempotency.core.engine.ObservedStore;
import dev.idempotency.core.engine.Pause;
import dev.idempotency.core.adapter.RequestPaths;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.engine.Stages;
import dev.idempotency.core.engine.Stopwatch;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The Idempotency-Key algorithm, once, for every framework and store.
 *
 * <p>An adapter calls {@link #before} (or {@link #beforeAsync}) with a view of the request. The
 * {@link Decision} says whether to run the handler untouched ({@link Decision.PassThrough}), answer
 * without running it ({@link Decision.Respond}: a replay or a problem), or run it under a
 * reservation ({@link Decision.Proceed}), in which case the adapter hands the captured response to
 * {@link Execution#finish} before the client sees it.
 *
 * <p>How a request flows: {@code Admission} decides what needs no store (scope, key, path, tenant,
 * body, fingerprint); the mode's {@code Flow}, chosen once here, asks the store (optimistic: look
 * up; reserve: reserve, with lease renewal while the handler runs; atomic: reserve inside the
 * application's transaction); {@code Answers} holds the rules both use (what a record in the way
 * means, what is stored, what a replay looks like). Both faces run that same code: the blocking
 * face over a blocking {@link Store}, the asynchronous face over an {@link AsyncStore}.
 *
 * <p>The life of a record: absent → in flight (reserved, leased) → completed (stored for
 * replay until it expires) — or back to absent when released (the response reports a failure, handler
 * failed; or, in the reserve mode, the reservation's own call failed so that its outcome is unknown and
 * the engine releases it as its owner once the store answers again) or when its lease or time to live
 * runs out.
 *
 * <p>Thread-safe; create one per application and {@link #close()} it on shutdown (it owns the
 * timer thread that renews leases).
 */
public final class IdempotencyEngine implements AutoCloseable {

    private final AsyncStore store;
    private final IdempotencyConfig config;
    private final Answers answers;
    private final Callers callers;
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Flow flow;
    private final boolean blockingStore;

    /**
     * An engine over a blocking store: {@link #before} runs the store calls on the caller's
     * thread, which event-loop adapters therefore take off the loop.
     *
     * @throws IllegalArgumentException when the mode needs what the store cannot do (the atomic
     *                                  mode needs a store with {@link Store#atomic})
     */
    public IdempotencyEngine(Store store, IdempotencyConfig config) {
        this(AsyncStore.onCallingThread(store), config, true);
    }

    /**
     * An engine over a non-blocking store (or a blocking one given an executor through
     * {@link AsyncStore#of}): {@link #beforeAsync} never blocks the caller's thread.
     *
     * @throws IllegalArgumentException when the mode needs what the store cannot do (the atomic
     *                                  mode needs a store with {@link AsyncStore#atomic})
     */
    public IdempotencyEngine(AsyncStore store, IdempotencyConfig config) {
        this(store, config, false);
    }

    private IdempotencyEngine(AsyncStore store, IdempotencyConfig config, boolean blockingStore) {
        this.config = Objects.requireNonNull(config, "config");
        this.store = ObservedStore.of(Objects.requireNonNull(store, "store"), config.listener());
        this.answers = new Answers(config);
        this.callers = new Callers(config);
        this.blockingStore = blockingStore;
        this.flow = Flow.of(config, this.store, answers, scheduler, blockingStore ? Pause.SLEEP : Pause.on(scheduler),
                new LostReservations(this.store, config.clock(), scheduler));
    }

    public IdempotencyConfig config() {
        return config;
    }

    /**
     * Whether the engine runs over a blocking {@link Store}, so that {@link #beforeAsync} and an
     * execution's {@code finishAsync}/{@code failAsync} do their store calls on the calling thread
     * (an event-loop adapter then takes them off the loop); {@code false} over an {@link AsyncStore},
     * whose stages never block the caller.
     */
    public boolean blocksCaller() {
        return blockingStore;
    }

    /**
     * Decides what happens to a request before its handler runs. Never throws for bad input or
     * storage failures (those are answered with a problem).
     *
     * <p>Blocking: a request in scope with a valid key costs store calls (and, with
     * {@code inFlightWait}, may wait), so event-loop adapters call it on a worker thread. A
     * request whose method is out of scope is answered without any I/O and without reading the
     * body, so it may be decided on any thread.
     */
    public Decision before(RequestView request) {
        return decide(request).toCompletableFuture().join();
    }

    /**
     * {@link #before} as a stage, which never completes exceptionally. Over an
     * {@link AsyncStore} the caller's thread is never blocked — a duplicate waiting for a request
     * in flight waits on the engine's timer, not in a sleeping thread; the admission step (key,
     * path, fingerprint of the body) runs on the calling thread. Over a blocking {@link Store}
     * it runs entirely on the calling thread and returns a completed stage: give such a store an
     * executor with {@link AsyncStore#of} to keep the caller free.
     */
    public CompletionStage<Decision> beforeAsync(RequestView request) {
        return blockingStore ? CompletableFuture.completedFuture(before(request)) : decide(request);
    }

    private CompletionStage<Decision> decide(RequestView request) {
        Stopwatch watch = new Stopwatch();
        Admission admission = Admission.of(request, config, callers, answers, watch);
        if (admission instanceof Admission.Decided decided) {
            return CompletableFuture.completedFuture(decided.decision());
        }
        Admission.Admitted admitted = (Admission.Admitted) admission;
        return Stages.attempt(() -> flow.decide(admitted))
                .exceptionally(failure -> answers.storageFailed(admitted.key(), failure, admitted.watch()));
    }

    /**
     * Whether the engine's storage is reachable and provisioned, for health endpoints: returns, or
     * throws {@link dev.idempotency.core.store.StorageUnavailableException} with the reason (see
     * {@link Store#check}). Blocking.
     */
    public void checkStorage() {
        Throwable failure = checkStorageAsync().handle((ok, e) -> e).toCompletableFuture().join();
        if (failure != null) {
            Throwable cause = Stages.unwrap(failure);
            throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
        }
    }

    /** {@link #checkStorage} as a stage, completed exceptionally when the storage is not usable. */
    public CompletionStage<Void> checkStorageAsync() {
        return Stages.attempt(store::check);
    }

    /**
     * Answers a request the framework refused before the engine could decide — for example a body
     * over the framework's own size limit, which it will not hand over — with {@code code}'s
     * problem, and reports it to the listeners as the engine's own rejections are. For adapters.
     */
    public Decision.Respond reject(RequestView request, ProblemCode code, String detail) {
        String method = request.method().toUpperCase(Locale.ROOT);
        String path = Admission.abbreviated(RequestPaths.normalize(request.path()).orElse(request.path()));
        return answers.reject(code, detail, method, path, null, null, new Stopwatch());
    }

    /**
     * A problem response in this engine's style ({@code type} under the configured base), for
     * adapters and applications that answer errors of their own.
     */
    public Problem problem(ProblemCode code, String detail) {
        return answers.problem(code, detail);
    }

    /**
     * A problem of the application's own (e.g. {@code validation_failed}) in the same style as
     * the engine's: {@code type} under the configured base, the code as its last segment.
     */
    public Problem problem(String code, String title, int status, String detail) {
        return new Problem(config.problemTypeBase() + code, title, status, detail, code);
    }

    /** Stops the timer thread. Executions still running lose their lease renewal. */
    @Override
    public void close() {
        scheduler.close();
    }
}
