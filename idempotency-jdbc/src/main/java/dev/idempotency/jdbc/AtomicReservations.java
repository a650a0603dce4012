package dev.idempotency.jdbc;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.ReserveResult;
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
 * timeout of each dialect); when it runs out the key counts as in flight — with the caller's own
 * fingerprint, since the other request's is not readable yet, so a different body gets 409 here
 * and 422 only once the first has committed.
 */
final class AtomicReservations {

    private static final Logger log = LoggerFactory.getLogger(AtomicReservations.class);

    /** Attempts per transaction (lost races the statement cannot describe) and transactions per call. */
    private static final int MAX_ATTEMPTS = 8;

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
        for (int round = 1; round <= MAX_ATTEMPTS; round++) {
            String token = UUID.randomUUID().toString();
            NewRow row = new NewRow(key, fingerprint, IdempotencyTable.IN_FLIGHT, token,
                    IdempotencyTable.micros(now.plus(lease)), null, IdempotencyTable.micros(now.plus(ttl)), at);
            ReserveResult result = inNewTransaction(row, at, lease, wait, deadline);
            if (result != null) {
                return result;
            }
            log.debug("Atomic reservation of key_preview={} was rolled back by the database (deadlock or "
                    + "serialization failure); starting over (round {})", key.keyPreview(), round);
        }
        throw new IllegalStateException("Could not settle the atomic reservation of key_preview=" + key.keyPreview()
                + " after " + MAX_ATTEMPTS + " transactions");
    }

    /** One transaction on one pooled connection; {@code null} when the database rolled it back and it must start over. */
    private ReserveResult inNewTransaction(NewRow row, Instant now, Duration lease, Duration wait, long deadline) {
        RecordKey key = row.key();
        Connection c = null;
        AtomicSession session = AtomicSession.open(dialect, sql, tenantSetting);
        boolean handedOver = false;
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
                        log.debug("Key_preview={} is held by an uncommitted transaction; answering in flight",
                                key.keyPreview());
                        return new ReserveResult.Existing(heldByAnotherTransaction(row, now, lease));
                    }
                    if (session.mustStartOver(e)) {
                        return null;
                    }
                    throw e;
                }
                if (result instanceof Statements.Attempt.Won) {
                    AtomicTransaction transaction = new AtomicTransaction(c, dialect);
                    TransactionalReservation reservation = new TransactionalReservation(key, row.ownerToken(), c,
                            session, transaction, sql, tableLabel);
                    handedOver = true;
                    return new ReserveResult.Acquired(reservation);
                }
                if (result instanceof Statements.Attempt.Lost lost) {
                    return new ReserveResult.Existing(lost.record());
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
                giveBack(c, session, key);
            }
        }
    }

    /**
     * The record as the engine should see a key whose row another transaction holds uncommitted:
     * in flight. Its fingerprint cannot be read, so it carries the caller's own.
     */
    private static IdempotencyRecord heldByAnotherTransaction(NewRow row, Instant now, Duration lease) {
        return new IdempotencyRecord(row.key(), row.fingerprint(), RecordState.IN_FLIGHT, null, row.expiresAt(),
                now.plus(lease));
    }

    private static Duration remaining(long deadline, Duration wait) {
        if (wait.isZero()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** Rolls back whatever the attempt did and returns the connection as the pool lent it. */
    private static void giveBack(Connection c, AtomicSession session, RecordKey key) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            session.end(c);
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
