package dev.idempotency.jdbc;

import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.jdbc.internal.AtomicSession;
import dev.idempotency.jdbc.internal.SqlFailures;
import dev.idempotency.jdbc.internal.Statements;
import dev.idempotency.sql.AtomicSql;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link JdbcStore#attemptInTransaction}: the dialect's reservation statement, run inside a
 * transaction that the won reservation keeps open for the handler.
 *
 * <p>A key whose row another transaction has written but not yet committed cannot be read; the
 * reservation statement instead waits for that transaction's row lock, at most the caller's
 * {@code wait} (the lock timeout of each dialect). When the other commits a completed record, the
 * attempt loses to it; when it rolls back or releases, this one wins. When the wait runs out, the
 * transaction is rolled back and the dialect tells, without waiting, who holds the key
 * ({@link AtomicSession#holder}); the engine decides from that.
 * <ul>
 *   <li>PostgreSQL: the won reservation statement also takes three shared advisory locks, 64 bits
 *       for the key and 32 for the key with its body (idempotency-sql's {@code InFlightLocks}); the duplicate
 *       reads {@code pg_locks} once. Winner: no extra round trip; duplicate: one. A hash collision
 *       can only turn a 422 into a 409, never into a replay.</li>
 *   <li>MariaDB/MySQL: a dirty read of the row ({@code SET TRANSACTION ISOLATION LEVEL READ
 *       UNCOMMITTED} for the next transaction, then the primary-key read). Winner: nothing;
 *       duplicate: two round trips.</li>
 *   <li>H2: the same dirty read, with the level set through JDBC (in-process).</li>
 * </ul>
 * What a dirty read shows is used only for its fingerprint: an uncommitted completion is never
 * replayed ({@link AtomicAttempt.Holder#COMPLETING}).
 */
final class AtomicReservations {

    private static final Logger log = LoggerFactory.getLogger(AtomicReservations.class);

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

    /** One transaction on one pooled connection. */
    AtomicAttempt<Reservation> attempt(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                       Duration lease, Duration ttl, Duration wait) {
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, was " + wait);
        }
        Instant at = Records.micros(now);
        long deadline = System.nanoTime() + wait.toNanos();
        NewRow row = NewRow.inFlight(key, fingerprint, ownerToken, now, lease, ttl);
        Connection c = null;
        AtomicSession session = sql.atomicSession(tenantSetting);
        boolean handedOver = false;
        boolean ended = false;
        try {
            c = dataSource.getConnection();
            for (int attempt = 1; attempt <= AtomicSql.MAX_ATTEMPTS; attempt++) {
                Statements.Attempt result;
                try {
                    result = attempt == 1
                            ? session.begin(c, row, at, remaining(deadline, wait), lease)
                            : session.nextAttempt(c, row, at, remaining(deadline, wait));
                } catch (SQLException e) {
                    if (session.isLockTimeout(e)) {
                        AtomicAttempt.Holder holder;
                        try {
                            c.rollback();
                            session.end(c);
                            ended = true;
                            holder = session.holder(c, row, at);
                        } catch (SQLException | RuntimeException unknown) {
                            // Not worth failing the request over: answer as if the dialect could not tell.
                            log.warn("Could not tell which request body holds key_preview={}; answering in flight: {}",
                                    key.keyPreview(), unknown.toString());
                            holder = AtomicAttempt.Holder.SAME_BODY;
                        }
                        return new AtomicAttempt.TimedOut<>(holder, e);
                    }
                    if (session.mustStartOver(e)) {
                        return new AtomicAttempt.RolledBack<>();
                    }
                    throw e;
                }
                if (result instanceof Statements.Attempt.Won) {
                    AtomicTransaction transaction = new AtomicTransaction(c, dialect);
                    TransactionalReservation reservation = new TransactionalReservation(key, ownerToken, c,
                            dataSource, session, transaction, sql, tableLabel);
                    handedOver = true;
                    return new AtomicAttempt.Won<>(reservation);
                }
                if (result instanceof Statements.Attempt.Lost lost) {
                    return new AtomicAttempt.Lost<>(lost.record());
                }
                log.debug("Atomic reservation of key_preview={} raced a concurrent change; asking again (attempt {})",
                        key.keyPreview(), attempt);
            }
            throw new IllegalStateException("Could not settle the atomic reservation of key_preview="
                    + key.keyPreview() + " after " + AtomicSql.MAX_ATTEMPTS + " attempts: the row kept changing");
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
