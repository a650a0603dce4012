package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
/**
 * Decides whether a handler's response says the request succeeded, so that it is stored for
 * replay. A response that is not stored releases its key, so the client's retry executes again —
 * right for failures a retry may fix.
 *
 * <p>A response the policy accepts but the engine cannot keep whole — its body not captured
 * ({@link CapturedResponse#body()} is then {@code null}) or larger than
 * {@link IdempotencyConfig#maxStoredBodyBytes()} — is stored without its body.
 */
@FunctionalInterface
public interface ReplayPolicy {

    /** Whether {@code response} reports a success that retries must not run again. */
    boolean isStorable(CapturedResponse response);

    /**
     * The default, after the reference design: only 2xx responses, and none whose JSON body has
     * a top-level {@code "status"} of {@code "partial"} or {@code "failed"} (a 200 that reports
     * a partial failure must not stop a retry from trying again).
     */
    static ReplayPolicy defaults() {
        return DefaultReplayPolicy.INSTANCE;
    }

    /** Both policies must agree to store. */
    default ReplayPolicy and(ReplayPolicy other) {
        return response -> isStorable(response) && other.isStorable(response);
    }
}
