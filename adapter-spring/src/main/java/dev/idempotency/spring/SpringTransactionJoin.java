package dev.idempotency.spring;

import java.sql.Connection;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The atomic mode inside Spring's transaction management: while the controller or the
 * {@link IdempotentMethod} runs, the reservation's connection — the one whose transaction commits
 * with the stored response, or rolls back with it — is bound to the {@link DataSource} it was taken
 * from ({@code JdbcStore}'s {@code execution.unwrap(DataSource.class)}) as Spring's current
 * transaction, exactly as {@code DataSourceTransactionManager} binds its own. Whoever built the store
 * and the engine, only code writing through that same data source joins; a store on another database
 * joins nothing. So {@code JdbcTemplate}, {@code JdbcClient} and
 * {@code DataSourceUtils.getConnection(dataSource)} write through it, and a {@code @Transactional}
 * (REQUIRED) method joins it instead of opening another; one that fails marks it rollback-only, which
 * the filter and the method's interceptor honour by rolling everything back. {@code REQUIRES_NEW}
 * still opens a transaction of its own, on another connection.
 *
 * <p>The engine commits and rolls back; the connection refuses {@code commit()} and
 * {@code rollback()} from the application ({@code AtomicTransaction}), and Spring, participating
 * only, calls neither. Nothing is bound when Spring already has a transaction on that data source
 * for the thread (the filter or the method then runs inside it, and the two stay apart).
 */
final class SpringTransactionJoin implements TransactionJoin {

    private static final Logger log = LoggerFactory.getLogger(SpringTransactionJoin.class);

    @Override
    public Joined join(Connection connection, DataSource dataSource, String keyPreview) {
        if (TransactionSynchronizationManager.hasResource(dataSource)) {
            log.debug("A Spring transaction is already bound to the data source; the atomic transaction of "
                    + "key_preview={} is not joined", keyPreview);
            return Joined.NOTHING;
        }
        JoinedConnectionHolder holder = new JoinedConnectionHolder(connection);
        TransactionSynchronizationManager.bindResource(dataSource, holder);
        return new Joined() {
            @Override
            public boolean inForce() {
                return true;
            }

            @Override
            public boolean rollbackOnly() {
                return holder.isRollbackOnly();
            }

            @Override
            public void close() {
                TransactionSynchronizationManager.unbindResourceIfPossible(dataSource);
            }
        };
    }

    /**
     * What a method whose joined transaction was marked rollback-only throws, so that it rolls back:
     * Spring's own exception for a commit that cannot be (here, so that callers need no spring-tx).
     */
    static RuntimeException rolledBack(String method) {
        return new UnexpectedRollbackException("A @Transactional method that took part in the transaction of "
                + method + " marked it rollback-only: rolled back");
    }

    /** A holder Spring sees as an active transaction (its setter is protected). */
    private static final class JoinedConnectionHolder extends ConnectionHolder {
        JoinedConnectionHolder(Connection connection) {
            super(connection);
            setTransactionActive(true);
        }
    }
}
