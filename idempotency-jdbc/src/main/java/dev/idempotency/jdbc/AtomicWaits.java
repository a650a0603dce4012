package dev.idempotency.jdbc;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import java.time.Duration;
import java.time.Instant;

/**
 * The atomic mode's rules for a reservation whose wait for the key's row lock ran out, kept once
 * for both stores that run the mode on PostgreSQL's locks: {@link JdbcStore}'s blocking rounds and
 * idempotency-vertx-sql's asynchronous ones. Not part of the API applications use.
 *
 * <p>After the wait ran out the transaction is rolled back and the store asks who holds the key.
 * Someone does: the key is in flight ({@link #heldUncommitted}). Nobody does: the holder ended in
 * between, so one more round runs with what is left of the wait. The row shows a completion with
 * the caller's body that a dirty read cannot tell committed from not: the holder is committing, so
 * one more round runs too, and a second such sight is answered in flight (409; the retry replays).
 * When nobody holds it after that round's wait either, the wait was never for the key's own row — a table lock of a migration,
 * {@code LOCK TABLE}, {@code VACUUM FULL} — and the answer is {@link #busy} (503), never 409: no
 * request with that key is in progress.
 */
public final class AtomicWaits {

    /** How many transactions a reservation may take before it gives up (deadlocks, races, a holder gone). */
    public static final int MAX_ROUNDS = 8;

    /** The fingerprint of an uncommitted holder with another body, when only "another" is known: it matches no request's. */
    public static final String ANOTHER_BODY = "(another request body, not yet committed)";

    /** What to do after a wait ran out. */
    public enum Verdict {
        /** Someone holds the key: answer in flight. */
        IN_FLIGHT,
        /** Nobody holds it now, the first time: run one more round. */
        ASK_AGAIN,
        /** Nobody held it after two waits: the storage is busy with another lock. */
        BUSY
    }

    private AtomicWaits() {
    }

    /** Who holds the key, as far as a reservation that stopped waiting could tell without waiting. */
    public enum Holder {
        /** Nobody: the key is free, or its row is not live. */
        NOBODY,
        /**
         * The key's row shows a completion with the caller's body that may not be committed yet (a
         * dirty read cannot tell): its holder is committing, or has just committed. Not a replay —
         * and no sign of a lock other than the row's either.
         */
        COMPLETING,
        /** An uncommitted request holds the key in flight. */
        IN_FLIGHT
    }

    /**
     * @param holder    who holds the key now
     * @param askedBefore an earlier round of this reservation already ran out of wait and asked
     */
    public static Verdict afterLockTimeout(Holder holder, boolean askedBefore) {
        return switch (holder) {
            case IN_FLIGHT -> Verdict.IN_FLIGHT;
            // Still committing after a second wait: the request is still in progress (409), not busy storage.
            case COMPLETING -> askedBefore ? Verdict.IN_FLIGHT : Verdict.ASK_AGAIN;
            case NOBODY -> askedBefore ? Verdict.BUSY : Verdict.ASK_AGAIN;
        };
    }

    /**
     * The record as the engine should see a key whose row another transaction holds uncommitted:
     * in flight, with the holder's fingerprint as far as it could be told (the caller's own for the
     * same body, or when it could not be told; {@link #ANOTHER_BODY} or the holder's for another).
     */
    public static IdempotencyRecord heldUncommitted(RecordKey key, String holdersFingerprint, Instant expiresAt,
                                                    Instant now, Duration lease) {
        return new IdempotencyRecord(key, holdersFingerprint, RecordState.IN_FLIGHT, null, expiresAt, now.plus(lease));
    }

    /** The {@link Verdict#BUSY} failure: 503 "Idempotency storage is busy". */
    public static StorageUnavailableException busy(RecordKey key, String tableLabel, Throwable lockTimeout) {
        return new StorageUnavailableException(Reason.BUSY, "The atomic reservation of key_preview=" + key.keyPreview()
                + " waited for a lock other than its row's (" + tableLabel + ")", lockTimeout);
    }
}
