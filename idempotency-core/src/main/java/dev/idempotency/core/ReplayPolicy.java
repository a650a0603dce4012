package dev.idempotency.core;

/**
 * Decides whether a handler's response is stored for replay. A response that is not stored
 * releases its key, so the client's retry executes again — right for failures a retry may fix.
 *
 * <p>The engine applies two rules of its own before asking: an uncaptured body and a body
 * larger than {@link IdempotencyConfig#maxStoredBodyBytes()} are never stored.
 */
@FunctionalInterface
public interface ReplayPolicy {

    /** Whether {@code response} should be stored and replayed to retries. */
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
