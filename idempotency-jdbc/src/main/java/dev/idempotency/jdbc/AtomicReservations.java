package dev.idempotency.jdbc;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link JdbcStore#reserveInTransaction}: the dialect's reservation statement, run inside a
 * transaction that the won reservation keeps open for the handler.
 *
 * <p>A key whose row another transaction has written but not yet committed cannot be read; the
 * reservation statement instead waits for that transaction's row lock. When the other commits a
 * completed record, the next attempt sees it (a replay, or 422 for another body); when it rolls
 * back or releases, this one wins. The wait is bounded by the caller's {@code wait} (the lock
 * timeout of each dialect). When it runs out, the transaction is rolled back and the dialect tells,
 * without waiting, which body holds the key ({@link AtomicSession#holdersFingerprint}): the key is
 * answered as in flight with that fingerprint, so the engine answers 409 for the same body and 422
 * for a different one, as in the other modes.
 * <ul>
 *   <li>PostgreSQL: the won reservation statement also takes three shared advisory locks, 64 bits
 *       for the key and 32 for the key with its body ({@link PostgresInFlightLocks}); the duplicate
 *       reads {@code pg_locks} once. Winner: no extra round trip; duplicate: one. A hash collision
 *       can only turn a 422 into a 409, never into a replay.</li>
 *   <li>MariaDB/MySQL: a dirty read of the row ({@code SET TRANSACTION ISOLATION LEVEL READ
 *       UNCOMMITTED} for the next transaction, then the primary-key read). Winner: nothing;
 *       duplicate: two round trips.</li>
 *   <li>H2: the same dirty read, with the level set through JDBC (in-process).</li>
 * </ul>
 * When nobody holds the key any more by then (the first ended in between, or the wait was for
 * something else), the request makes one more reservation attempt in a new transaction, with
 * whatever is left of its wait, and gets the ordinary answer; if that times out too and again
 * nobody holds the key, the wait was not for the key's own row — a table lock such as a
 * migration's, {@code LOCK TABLE} or {@code VACUUM FULL} — and the store reports
 * {@link Reason#BUSY} (503 "Idempotency storage is busy", never 409: the key is not in flight). What a dirty read shows is used only for its fingerprint: an uncommitted
 * completion is never replayed — the same body asks again, and a second wait that ends on it is
 * answered in flight (409), since its holder is committing ({@link AtomicWaits.Holder#COMPLETING}).
 */
final class AtomicReservations {

    private static final Logger log = LoggerFactory.getLogger(AtomicReservations.class);

    /** Attempts per transaction (lost races the statement cannot describe) and transactions per call. */
    private static final int MAX_ATTEMPTS = AtomicWaits.MAX_ROUNDS;

    private final DataSource dataSource;
    private final Statements sql;
    private final SQLDialect dialect;
    private final String tenantSetting;
    private final String tableLabel;

    AtomicReservations(DataSource dataSource, Statements sql, SQLDialect dialect, String tenantSetting,
                       String tableLabel) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.dialect = dialect;
        this.tenantSetting = tenantSetting;
        this.tableLabel = tableLabel;
    }

    ReserveResult reserve(RecordKey key, String fingerprint, Instant now, Duration lease, Duration ttl, Duration wait) {
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, was " + wait);
        }
        Instant at = IdempotencyTable.micros(now);
        long deadline = System.nanoTime() + wait.toNanos();
        boolean askedBefore = false;
        for (int round = 1; round <= MAX_ATTEMPTS; round++) {
            String token = UUID.randomUUID().toString();
            NewRow row = new NewRow(key, fingerprint, IdempotencyTable.IN_FLIGHT, token,
                    IdempotencyTable.micros(now.plus(lease)), null, IdempotencyTable.micros(now.plus(ttl)), at);
            Round result = inNewTransaction(row, at, lease, wait, deadline, askedBefore);
            if (result instanceof Round.Answer answer) {
                return answer.result();
            }
            if (result instanceof Round.HolderGone) {
                askedBefore = true;
                log.debug("The uncommitted holder of key_preview={} ended or was committing while this request "
                        + "stopped waiting; asking once more (round {})", key.keyPreview(), round);
            } else {
                log.debug("Atomic reservation of key_preview={} was rolled back by the database (deadlock or "
                        + "serialization failure); starting over (round {})", key.keyPreview(), round);
            }
        }
        throw new IllegalStateException("Could not settle the atomic reservation of key_preview=" + key.keyPreview()
                + " after " + MAX_ATTEMPTS + " transactions");
    }

    /** What one transaction came to: the answer, or a reason to start another. */
    private sealed interface Round {
        record Answer(ReserveResult result) implements Round {
        }

        /** The database rolled the transaction back (deadlock, serialization failure). */
        record RolledBack() implements Round {
        }

        /** The lock wait ran out, and by the time this request asked, nobody held the key or its holder was committing. */
        record HolderGone() implements Round {
        }
    }

    private static final Round ROLLED_BACK = new Round.RolledBack();
    private static final Round HOLDER_GONE = new Round.HolderGone();

    /**
     * One transaction on one pooled connection.
     *
     * @param askedBefore an earlier round ran out of wait and asked: this round answers (in flight,
     *                    or busy when nobody holds the key) rather than ask again
     */
    private Round inNewTransaction(NewRow row, Instant now, Duration lease, Duration wait, long deadline,
                                   boolean askedBefore) {
        RecordKey key = row.key();
        Connection c = null;
        AtomicSession session = sql.atomicSession(tenantSetting);
        boolean handedOver = false;
        boolean ended = false;
        try {
            c = dataSource.getConnection();
            for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
                Statements.Attempt result;
                try {
                    result = attempt == 1
                            ? session.begin(c, row, now, remaining(deadline, wait), lease)
                            : session.nextAttempt(c, row, now, remaining(deadline, wait));
                } catch (SQLException e) {
                    if (session.isLockTimeout(e)) {
                        AtomicSession.Held holder;
                        try {
                            c.rollback();
                            session.end(c);
                            ended = true;
                            holder = session.holdersFingerprint(c, row, now);
                        } catch (SQLException | RuntimeException unknown) {
                            // Not worth failing the request over: answer as if the dialect could not tell.
                            log.warn("Could not tell which request body holds key_preview={}; answering in flight: {}",
                                    key.keyPreview(), unknown.toString());
                            holder = AtomicSession.Held.inFlight(row.fingerprint());
                        }
                        switch (AtomicWaits.afterLockTimeout(holder.holder(), askedBefore)) {
                            case ASK_AGAIN:
                                return HOLDER_GONE;
                            case BUSY:
                                throw AtomicWaits.busy(key, tableLabel, e);
                            default:
                                log.debug("Key_preview={} is held by an uncommitted transaction ({}); answering in "
                                        + "flight", key.keyPreview(),
                                        holder.fingerprint().equals(row.fingerprint()) ? "the same body" : "another body");
                                return new Round.Answer(new ReserveResult.Existing(AtomicWaits.heldUncommitted(
                                        key, holder.fingerprint(), row.expiresAt(), now, lease)));
                        }
                    }
                    if (session.mustStartOver(e)) {
                        return ROLLED_BACK;
                    }
                    throw e;
                }
                if (result instanceof Statements.Attempt.Won) {
                    AtomicTransaction transaction = new AtomicTransaction(c, dialect);
                    TransactionalReservation reservation = new TransactionalReservation(key, row.ownerToken(), c, dataSource,
                            session, transaction, sql, tableLabel);
                    handedOver = true;
                    return new Round.Answer(new ReserveResult.Acquired(reservation));
                }
                if (result instanceof Statements.Attempt.Lost lost) {
                    return new Round.Answer(new ReserveResult.Existing(lost.record()));
                }
                log.debug("Atomic reservation of key_preview={} raced a concurrent change; asking again (attempt {})",
                        key.keyPreview(), attempt);
            }
            throw new IllegalStateException("Could not settle the atomic reservation of key_preview="
                    + key.keyPreview() + " after " + MAX_ATTEMPTS + " attempts: the row kept changing");
        } catch (SQLException | RuntimeException e) {
            throw SqlFailures.translate(e, tableLabel);
        } finally {
            if (c != null && !handedOver) {
                giveBack(c, session, key, ended);
            }
        }
    }

    private static Duration remaining(long deadline, Duration wait) {
        if (wait.isZero()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * Rolls back whatever the attempt did and returns the connection as the pool lent it.
     *
     * @param ended the transaction was rolled back and the session put back already
     */
    private static void giveBack(Connection c, AtomicSession session, RecordKey key, boolean ended) {
        try {
            if (!ended) {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                session.end(c);
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Could not reset a connection after the atomic reservation of key_preview={}: {}",
                    key.keyPreview(), e.toString());
        }
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("Could not return a connection after the atomic reservation of key_preview={}: {}",
                    key.keyPreview(), e.toString());
        }
    }
}
