package dev.idempotency.spring.webflux;

import dev.idempotency.core.IdempotencyEngine;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs the engine's steps without blocking an event loop. Over a blocking store
 * ({@link IdempotencyEngine#blocksCaller()}) on two bounded elastic schedulers of its own: one for
 * the decision before the handler (where a duplicate may wait for its twin, with
 * {@code inFlightWait}), one for finishing afterwards, so that waiting duplicates can never starve
 * the completion they wait for, nor Reactor's shared bounded elastic scheduler the application's
 * own blocking work. Over an asynchronous store the steps run where they are called, as the stages
 * they return, and no scheduler is created; a decision that completes off the event loops goes on
 * on Reactor's parallel scheduler. A step that has started runs to its end even if the
 * exchange is cancelled meanwhile.
 */
final class EngineSteps implements AutoCloseable {

    /** The decisions' scheduler's name; the completions' is {@code idempotency-completion}. */
    static final String NAME = "idempotency";

    private final Scheduler decisions;
    private final Scheduler completions;

    EngineSteps(IdempotencyEngine engine) {
        if (engine.blocksCaller()) {
            decisions = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
                    Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, NAME, 60, true);
            completions = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
                    Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, NAME + "-completion", 60, true);
        } else {
            decisions = null;
            completions = null;
        }
    }

    /**
     * A step before the handler. Over an asynchronous store whose stage completes on a thread of
     * its own (a Redis client's I/O thread, say), the result is handed to Reactor's parallel
     * scheduler, so that the handler never runs on the store's thread.
     */
    <T> Mono<T> decide(Supplier<? extends CompletionStage<T>> step) {
        if (decisions != null) {
            return run(step, decisions);
        }
        return run(step, null).flatMap(result -> Schedulers.isInNonBlockingThread()
                ? Mono.just(result)
                : Mono.just(result).publishOn(Schedulers.parallel()));
    }

    /** A step after the handler: finishing or failing the execution. */
    <T> Mono<T> complete(Supplier<? extends CompletionStage<T>> step) {
        return run(step, completions);
    }

    private static <T> Mono<T> run(Supplier<? extends CompletionStage<T>> step, Scheduler scheduler) {
        Mono<T> mono = Mono.defer(() -> Mono.fromFuture(step.get().toCompletableFuture(), true));
        return scheduler == null ? mono : mono.subscribeOn(scheduler);
    }

    /** Stops the schedulers' threads. */
    @Override
    public void close() {
        if (decisions != null) {
            decisions.dispose();
            completions.dispose();
        }
    }
}
