package dev.idempotency.core.call;

/**
 * What a message consumer does with a delivery once its {@link IdempotentCall} is decided: each
 * broker binding maps these onto its own acknowledgement. A handler that throws is left to the
 * binding's usual failure handling (its key is released, so a redelivery runs again).
 */
public enum Settlement {

    /** Done — it ran now, or ran before (replayed, or its result not stored): acknowledge it. */
    DONE,

    /**
     * Not now — a duplicate of it still runs, or the storage could not be used: have it delivered
     * again later, never acknowledged.
     */
    LATER,

    /**
     * Never — another message was first handled under its key (another input): reject it without
     * redelivery, for the broker's dead-letter policy.
     */
    REFUSED;

    /** The settlement of {@code outcome}. */
    public static Settlement of(CallOutcome<?> outcome) {
        if (outcome instanceof CallOutcome.InFlight<?> || outcome instanceof CallOutcome.StorageUnavailable<?>) {
            return LATER;
        }
        return outcome instanceof CallOutcome.KeyReused<?> ? REFUSED : DONE;
    }
}
