package dev.idempotency.core.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What a store holds for one {@link RecordKey}, as seen by a request that did not win the
 * reservation.
 *
 * @param key         the namespace and client key
 * @param fingerprint hex SHA-256 of the media type and canonical body of the request that reserved it
 * @param state       in flight or completed
 * @param response    the stored response; non-null exactly when {@code state} is completed
 * @param expiresAt   after this instant the record counts as absent (an in-flight one: once its
 *                    lease has run out too)
 * @param leaseUntil  for an in-flight record, when its lease runs out and the key may be taken
 *                    over; {@code null} when completed
 */
public record IdempotencyRecord(
        RecordKey key,
        String fingerprint,
        RecordState state,
        StoredResponse response,
        Instant expiresAt,
        Instant leaseUntil) {

    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if ((state == RecordState.COMPLETED) != (response != null)) {
            throw new IllegalArgumentException("a record has a response exactly when it is completed");
        }
    }

    public boolean isCompleted() {
        return state == RecordState.COMPLETED;
    }
}
