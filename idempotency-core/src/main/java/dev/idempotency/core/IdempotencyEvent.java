package dev.idempotency.core;

import java.time.Duration;

/**
 * One request's fate.
 *
 * @param outcome     what happened
 * @param method      the HTTP method
 * @param path        the normalized path (or the raw path for pass-through requests)
 * @param tenant      the tenant, or {@code null} when not resolved
 * @param keyPreview  {@link dev.idempotency.core.store.RecordKey#preview the key's preview}, or {@code null} without a key
 * @param problemCode    for {@link Outcome#REJECTED}, the problem's {@code code}; otherwise {@code null}
 * @param decisionTime   how long the engine took to decide before the handler (admission and store
 *                       calls, waits for a request in flight included); {@code null} when not measured
 * @param executionTime  for the outcomes after a {@code Proceed}, how long from the decision to the
 *                       end of finishing (the handler's run and the store's completion); otherwise
 *                       {@code null}
 */
public record IdempotencyEvent(Outcome outcome, String method, String path, String tenant, String keyPreview,
                               String problemCode, Duration decisionTime, Duration executionTime) {

    /** An event without timings. */
    public IdempotencyEvent(Outcome outcome, String method, String path, String tenant, String keyPreview,
                            String problemCode) {
        this(outcome, method, path, tenant, keyPreview, problemCode, null, null);
    }

    /** What the engine did with a request. */
    public enum Outcome {
        /** Out of scope or without a key: the handler ran untouched. */
        PASSED_THROUGH,
        /** Answered with a problem; the handler did not run. */
        REJECTED,
        /** Answered with the stored response; the handler did not run. */
        REPLAYED,
        /** The handler ran and its response was stored (without its body when it could not be kept whole). */
        EXECUTED_STORED,
        /** The handler ran; its response was not storable, so the key was released. */
        EXECUTED_NOT_STORED,
        /** The handler threw; the key was released (atomic mode: rolled back). */
        EXECUTION_FAILED,
        /** The handler ran but storing its response failed; the client still got it. */
        PERSIST_FAILED;

        /** Whether the handler ran. */
        public boolean executed() {
            return this == PASSED_THROUGH || this == EXECUTED_STORED || this == EXECUTED_NOT_STORED
                    || this == EXECUTION_FAILED || this == PERSIST_FAILED;
        }
    }
}
