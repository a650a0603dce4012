package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import java.util.concurrent.CompletionStage;

/**
 * Reserve inside the application's transaction; the handler writes in it and the completion
 * commits it. A duplicate waits in the database for the owning transaction (up to
 * {@code inFlightWait}), so there is nothing to poll and nothing to renew: the uncommitted
 * reservation is invisible to others. The store makes one attempt at a time; the rounds and what
 * a wait that ran out is answered are {@link AsyncStore.Atomic#reserve}'s.
 */
final class AtomicFlow implements Flow {

    private final AsyncStore.Atomic store;
    private final Answers answers;
    private final IdempotencyConfig config;

    AtomicFlow(AsyncStore.Atomic store, Answers answers, IdempotencyConfig config) {
        this.store = store;
        this.answers = answers;
        this.config = config;
    }

    @Override
    public CompletionStage<Decision> decide(Admission.Admitted request) {
        return Stages.attempt(() -> store.reserve(request.key(), request.fingerprint(),
                        config.clock().instant(), config.lease(), config.ttl(), config.inFlightWait()))
                .thenApply(result -> result instanceof AsyncReserveResult.Acquired acquired
                        ? new Decision.Proceed(new ReservedExecution(acquired.reservation(), request.watch(), answers,
                                answers::notApplied, true, PersistRetries.once()))
                        : answers.existing(request.key(), request.fingerprint(),
                                ((AsyncReserveResult.Existing) result).record(), request.watch()));
    }
}
