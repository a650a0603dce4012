package dev.idempotency.core.adapter;

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
     */
    record Respond(HttpReply reply, Outcome outcome) implements Decision {

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
