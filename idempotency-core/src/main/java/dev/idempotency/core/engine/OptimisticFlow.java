package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.AsyncStore;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;

/** Look up; if nothing is there, run the handler and insert the record after it. */
final class OptimisticFlow implements Flow {

    private final AsyncStore store;
    private final Answers answers;
    private final IdempotencyConfig config;
    private final EngineScheduler scheduler;
    /** One insert retried at a time ({@link PersistRetries}). */
    private final Semaphore retryTurns = new Semaphore(1);

    /** @param scheduler where a failed insert is asked again */
    OptimisticFlow(AsyncStore store, Answers answers, IdempotencyConfig config, EngineScheduler scheduler) {
        this.scheduler = scheduler;
        this.store = store;
        this.answers = answers;
        this.config = config;
    }

    @Override
    public CompletionStage<Decision> decide(Admission.Admitted request) {
        return Stages.attempt(() -> store.find(request.key(), config.clock().instant()))
                .thenApply(record -> record.isPresent()
                        ? answers.existing(request.key(), request.fingerprint(), record.get(), request.watch())
                        : new Decision.Proceed(new OptimisticExecution(request, store, answers, config,
                                new PersistRetries(scheduler, retryTurns, config.clock(), config.lease(),
                                        () -> Instant.MAX))));
    }
}
