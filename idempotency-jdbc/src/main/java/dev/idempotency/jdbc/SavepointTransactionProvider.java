package dev.idempotency.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import org.jooq.Transaction;
import org.jooq.TransactionContext;
import org.jooq.TransactionProvider;
import org.jooq.exception.DataAccessException;

/**
 * jOOQ transactions inside the atomic mode's transaction: {@code dsl.transaction(...)} sets a
 * savepoint, releases it when the block succeeds and rolls back to it when the block throws. The
 * outer transaction is never committed here; the engine does that with the stored response.
 */
final class SavepointTransactionProvider implements TransactionProvider {

    private final Connection connection;

    SavepointTransactionProvider(Connection connection) {
        this.connection = connection;
    }

    @Override
    public void begin(TransactionContext ctx) {
        try {
            ctx.transaction(new Nested(connection.setSavepoint()));
        } catch (SQLException e) {
            throw new DataAccessException("Could not set a savepoint: " + e.getMessage(), e);
        }
    }

    @Override
    public void commit(TransactionContext ctx) {
        try {
            connection.releaseSavepoint(((Nested) ctx.transaction()).savepoint);
        } catch (SQLException e) {
            throw new DataAccessException("Could not release a savepoint: " + e.getMessage(), e);
        }
    }

    @Override
    public void rollback(TransactionContext ctx) {
        try {
            connection.rollback(((Nested) ctx.transaction()).savepoint);
        } catch (SQLException e) {
            throw new DataAccessException("Could not roll back to a savepoint: " + e.getMessage(), e);
        }
    }

    private record Nested(Savepoint savepoint) implements Transaction {
    }
}
