package dev.idempotency.sql;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Instant;

/**
 * A row about to be written by a reservation or an optimistic insert; times already at
 * microsecond precision ({@link Records#micros}).
 *
 * @param response {@code null} for an in-flight reservation
 */
public record NewRow(RecordKey key, String fingerprint, String state, String ownerToken, Instant lockedUntil,
                     StoredResponse response, Instant expiresAt, Instant createdAt) {

    /** An in-flight reservation at {@code now} under a lease of {@code lease}, expiring after {@code ttl}. */
    public static NewRow inFlight(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                  java.time.Duration lease, java.time.Duration ttl) {
        return new NewRow(key, fingerprint, Records.IN_FLIGHT, ownerToken, Records.micros(now.plus(lease)), null,
                Records.micros(now.plus(ttl)), Records.micros(now));
    }

    /** A completed record at {@code now}, expiring after {@code ttl}, under a fresh owner token. */
    public static NewRow completed(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   java.time.Duration ttl) {
        return new NewRow(key, fingerprint, Records.COMPLETED, java.util.UUID.randomUUID().toString(), null, response,
                Records.micros(now.plus(ttl)), Records.micros(now));
    }
}
