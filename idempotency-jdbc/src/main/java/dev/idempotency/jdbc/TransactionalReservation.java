package dev.idempotency.jdbc;

import dev.idempotency.core.store.AbstractReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.internal.AtomicSession;
import dev.idempotency.jdbc.internal.SqlFailures;
import dev.idempotency.jdbc.internal.Statements;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reservation of the atomic mode: its row was written inside a transaction that stays open on
 * a pooled connection until the request is finished, and the handler writes in the same
 * transaction ({@link #unwrap}: {@link AtomicTransaction}, {@link Connection}, {@link DSLContext};
 * and {@link DataSource}, the pool the connection was taken from, so that a framework's transaction
 * management can bind the connection to it as its current transaction).
 *
 * <ul>
 *   <li>{@link #complete}: the owner-checked UPDATE that stores the response, then COMMIT (one
 *       round trip on PostgreSQL) — the handler's writes and the record become visible together;
 *       when the UPDATE finds no row, ROLLBACK instead.</li>
 *   <li>{@link #release}: DELETE of the reservation row, then COMMIT (one round trip on
 *       PostgreSQL) — the handler's writes stay, no record survives, a retry runs again.</li>
 *   <li>{@link #abort}: ROLLBACK — the handler's writes and the reservation are gone.</li>
 *   <li>{@link #renew}: nothing to do; nobody else can see the uncommitted row.</li>
 * </ul>
 * Each finish returns the connection to the pool, whatever happened.
 */
final class TransactionalReservation extends AbstractReservation {

    private static final Logger log = LoggerFactory.getLogger(TransactionalReservation.class);

    private final Connection connection;
    private final DataSource pool;
    private final AtomicSession session;
    private final AtomicTransaction transaction;
    private final Statements sql;
    private final String tableLabel;

    TransactionalReservation(RecordKey key, String ownerToken, Connection connection, DataSource pool,
                             AtomicSession session, AtomicTransaction transaction, Statements sql, String tableLabel) {
        super(key, ownerToken);
        this.connection = connection;
        this.pool = pool;
        this.session = session;
        this.transaction = transaction;
        this.sql = sql;
        this.tableLabel = tableLabel;
    }

    @Override
    protected boolean doComplete(StoredResponse response) {
        return endTransaction(() -> {
            // The UPDATE and the COMMIT (one round trip on PostgreSQL). Only this transaction can
            // see the row; if even it cannot update it, the handler removed or changed it: nothing
            // is committed rather than writes without their record.
            if (!sql.completeAndCommit(connection, key(), ownerToken(), response)) {
                log.warn("The atomic reservation row of key_preview={} was gone at completion; rolled back "
                        + "the request's writes", key().keyPreview());
                return false;
            }
            return true;
        });
    }

    @Override
    protected boolean doRelease() {
        return endTransaction(() -> {
            // The DELETE and the COMMIT (one round trip on PostgreSQL): the handler's writes stay;
            // only the reservation goes.
            return sql.releaseAndCommit(connection, key(), ownerToken());
        });
    }

    @Override
    protected void doAbort() {
        endTransaction(() -> {
            connection.rollback();
            return null;
        });
    }

    /** The uncommitted row is invisible to every other request: there is no lease to defend. */
    @Override
    protected boolean doRenew(Instant now, Duration lease) {
        return true;
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (isFinished()) {
            return Optional.empty();
        }
        if (type == AtomicTransaction.class) {
            return Optional.of(type.cast(transaction));
        }
        if (type == Connection.class) {
            return Optional.of(type.cast(transaction.connection()));
        }
        if (type == DSLContext.class) {
            return Optional.of(type.cast(transaction.dsl()));
        }
        if (type == DataSource.class) {
            return Optional.of(type.cast(pool));
        }
        return Optional.empty();
    }

    @FunctionalInterface
    private interface Ending<T> {
        T run() throws SQLException;
    }

    /**
     * Runs the statements that end the transaction; on failure rolls back what is left (a broken
     * connection's transaction dies with it on the server). Either way the connection goes back.
     */
    private <T> T endTransaction(Ending<T> ending) {
        try {
            return ending.run();
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(e);
            throw SqlFailures.translate(e, tableLabel);
        } finally {
            finish();
        }
    }

    private void rollbackQuietly(Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException rollback) {
            cause.addSuppressed(rollback);
        }
    }

    /** Hands the connection back to the pool as it was lent; the handler's view of it goes dead first. */
    private void finish() {
        transaction.close();
        try {
            if (!connection.isClosed()) { // a broken connection is closed by the pool already
                session.end(connection);
            }
        } catch (SQLException | RuntimeException e) {
            log.warn("Could not reset the atomic transaction's connection for key_preview={}: {}",
                    key().keyPreview(), e.toString());
        }
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("Could not return the atomic transaction's connection for key_preview={}: {}",
                    key().keyPreview(), e.toString());
        }
    }
}
