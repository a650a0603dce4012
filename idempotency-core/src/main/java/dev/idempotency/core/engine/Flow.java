package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.AsyncStore;
import java.util.concurrent.CompletionStage;

/**
 * One mode's way from an admitted request to a decision: what it asks the store before the
 * handler, and what kind of {@link Execution} runs the handler. Chosen once, when the engine is
 * built; its stage never completes exceptionally for a store failure it can answer (the engine maps
 * what remains to 503).
 */
public interface Flow {

    CompletionStage<Decision> decide(Admission.Admitted request);

    /**
     * The flow of {@code config}'s mode over {@code store}; refuses a mode the store cannot do.
     *
     * @param pause how a duplicate waits for a request in flight: sleeping for a store that blocks
     *              its caller anyway, the timer for a non-blocking one
     * @param lost  the reservations of unknown outcome that the reserve mode gives back
     */
    static Flow of(IdempotencyConfig config, AsyncStore store, Answers answers, EngineScheduler scheduler,
                   Pause pause, LostReservations lost) {
        return switch (config.mode()) {
            case OPTIMISTIC -> new OptimisticFlow(store, answers, config, scheduler);
            case RESERVE -> new ReserveFlow(store, answers, config, scheduler, pause, lost);
            case ATOMIC -> {
                AsyncStore.Atomic atomic = store.atomic().orElseThrow(() -> new IllegalArgumentException(
                        "The atomic mode needs a store that joins the application's transaction (JdbcStore, "
                                + "PgStore); the configured store cannot, so use the reserve mode"));
                yield new AtomicFlow(atomic, answers, config);
            }
        };
    }
}
