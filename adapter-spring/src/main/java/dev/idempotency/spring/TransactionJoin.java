package dev.idempotency.spring;

import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.call.CallContext;
import java.sql.Connection;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Lets the application's own data access take part in the atomic mode's transaction while a
 * controller ({@link IdempotencyFilter}) or an {@link IdempotentMethod} runs
 * ({@link SpringTransactionJoin}); a no-op otherwise.
 */
interface TransactionJoin {

    /** Nothing joined: the execution's transaction, if any, stays the engine's alone. */
    TransactionJoin NONE = (connection, dataSource, keyPreview) -> Joined.NOTHING;

    /**
     * Called on the thread that runs the work, before it runs; the result is closed after it.
     *
     * @param connection the atomic mode's connection, whose transaction the engine commits or rolls back
     * @param dataSource the data source it was taken from
     * @param keyPreview the key as logs may show it
     */
    Joined join(Connection connection, DataSource dataSource, String keyPreview);

    /** The join of a request's execution: nothing unless it is the atomic mode of a store on a data source. */
    default Joined join(Execution execution) {
        return join(execution.unwrap(Connection.class), execution.unwrap(DataSource.class),
                execution.key().keyPreview());
    }

    /** The join of a call's execution: nothing unless it is the atomic mode of a store on a data source. */
    default Joined join(CallContext context, String keyPreview) {
        return join(context.unwrap(Connection.class), context.unwrap(DataSource.class), keyPreview);
    }

    private Joined join(Optional<Connection> connection, Optional<DataSource> dataSource, String keyPreview) {
        return connection.isPresent() && dataSource.isPresent()
                ? join(connection.get(), dataSource.get(), keyPreview) : Joined.NOTHING;
    }

    /** A join in force until {@link #close}. */
    interface Joined extends AutoCloseable {

        Joined NOTHING = new Joined() {
            @Override
            public boolean inForce() {
                return false;
            }

            @Override
            public boolean rollbackOnly() {
                return false;
            }

            @Override
            public void close() {
            }
        };

        /** Whether a transaction is bound to the thread (then the work must not go asynchronous). */
        boolean inForce();

        /** Whether a participating {@code @Transactional} method marked the transaction rollback-only. */
        boolean rollbackOnly();

        @Override
        void close();
    }
}
