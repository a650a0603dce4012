package dev.idempotency.jdbc;

import dev.idempotency.core.adapter.ThreadTransaction;
import dev.idempotency.sql.SqlConnections;
import dev.idempotency.sql.SqlSession;
import jakarta.transaction.NotSupportedException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.sql.SQLException;
import java.util.concurrent.CompletionStage;

/**
 * The atomic mode's sessions in JTA transactions ({@link JdbcStore.Builder#transactionManager}):
 * each begins a transaction on the calling thread, then takes its connection, which the data
 * source enlists in it. The transaction, not the connection, commits and rolls back; code on that
 * thread that writes in the current JTA transaction takes part in it. It ends on the thread it is
 * current on, ending that thread's association, or through the transaction itself from another.
 */
final class JtaSessions implements SqlConnections {

    /** A transaction that failed to commit: rolled back (SQLSTATE class 40). */
    private static final String ROLLED_BACK = "40000";

    private final JdbcSession.Sessions sessions;
    private final TransactionManager manager;

    JtaSessions(JdbcSession.Sessions sessions, TransactionManager manager) {
        this.sessions = sessions;
        this.manager = manager;
    }

    @Override
    public CompletionStage<SqlSession> open() {
        return JdbcSession.call(() -> {
            Transaction transaction = begin();
            try {
                return sessions.on(sessions.pool().getConnection(), new Owner(manager, transaction));
            } catch (SQLException | RuntimeException e) {
                new Owner(manager, transaction).rollback();
                throw e;
            }
        });
    }

    @Override
    public SqlError error(Throwable failure) {
        return sessions.error(failure);
    }

    private Transaction begin() throws SQLException {
        try {
            manager.begin();
            return manager.getTransaction();
        } catch (NotSupportedException e) {
            throw new SQLException("The atomic mode begins a JTA transaction of its own, and this thread is already "
                    + "in one: the idempotency filter must run outside the application's transactions", e);
        } catch (SystemException e) {
            throw new SQLException("Could not begin a JTA transaction", e);
        }
    }

    /** Ends {@code transaction}: on the thread it is current on, through the manager; elsewhere, itself. */
    private record Owner(TransactionManager manager, Transaction transaction)
            implements JdbcSession.Owner, ThreadTransaction {

        @Override
        public boolean rollbackOnly() {
            try {
                return transaction.getStatus() == Status.STATUS_MARKED_ROLLBACK;
            } catch (SystemException e) {
                return false;
            }
        }

        @Override
        public void commit() throws SQLException {
            try {
                if (current()) {
                    manager.commit();
                } else {
                    transaction.commit();
                }
            } catch (RollbackException e) {
                throw new SQLException("The JTA transaction was rolled back instead of committed", ROLLED_BACK, e);
            } catch (Exception e) {
                throw new SQLException("The JTA transaction could not commit", e);
            }
        }

        @Override
        public void rollback() throws SQLException {
            try {
                if (current()) {
                    manager.rollback();
                } else if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                    transaction.rollback();
                }
            } catch (Exception e) {
                throw new SQLException("The JTA transaction could not roll back", e);
            }
        }

        private boolean current() throws SystemException {
            return transaction.equals(manager.getTransaction());
        }
    }

}
