package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Instant;

/**
 * A row about to be written by a reservation or an optimistic insert. Times are already at
 * microsecond precision.
 *
 * @param response {@code null} for an in-flight reservation
 * <p>Internal, not API: may change without notice.
 */
public record NewRow(RecordKey key, String fingerprint, String state, String ownerToken, Instant lockedUntil,
              StoredResponse response, Instant expiresAt, Instant createdAt) {
}
