package dev.idempotency.core;

import dev.idempotency.core.store.AsyncStore;
import java.util.concurrent.CompletionStage;

/** Look up; if nothing is there, run the handler and insert the record after it. */
final class OptimisticFlow implements Flow {

    private final AsyncStore store;
    private final Answers answers;
    private final IdempotencyConfig config;
    private final EngineScheduler scheduler;

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
                        : new Decision.Proceed(new OptimisticExecution(request, store, answers, config, scheduler)));
    }
}
