package dev.idempotency.core.adapter;

import dev.idempotency.core.ProblemCode;

/**
 * What the engine decided for a request before its handler: the adapter translates each case
 * into its framework's terms and nothing more.
 */
public sealed interface Decision {

    /** Not an idempotent request (method out of scope, or no key and none required): run it as usual. */
    record PassThrough() implements Decision {
    }

    /**
     * Answer with {@code reply} and do not run the handler: a replay of the stored response, or
     * a problem (invalid key, conflict, in progress, storage unavailable).
     *
     * <p>{@code problem} and {@code storageFailure} say the same as the reply in the engine's own
     * terms, for adapters that answer in other terms than HTTP (the idempotent calls):
     *
     * @param problem        the problem the reply reports: the refusal's code; for a replay of a
     *                       record kept without its body, {@link ProblemCode#IDEMPOTENCY_RESPONSE_NOT_STORED};
     *                       {@code null} for a replay of a stored response
     * @param storageFailure what the store failed with, behind
     *                       {@link ProblemCode#IDEMPOTENCY_STORAGE_UNAVAILABLE}; otherwise {@code null}
     */
    record Respond(HttpReply reply, Outcome outcome, ProblemCode problem, Throwable storageFailure)
            implements Decision {

        /** A reply without the engine's terms. */
        public Respond(HttpReply reply, Outcome outcome) {
            this(reply, outcome, null, null);
        }

        /** Why the handler does not run. */
        public enum Outcome { REPLAYED, REJECTED }

        public boolean isReplay() {
            return outcome == Outcome.REPLAYED;
        }
    }

    /**
     * Run the handler, then hand its response to {@link Execution#finish} (or its failure to
     * {@link Execution#fail}) before the response reaches the client.
     */
    record Proceed(Execution execution) implements Decision {
    }
}
