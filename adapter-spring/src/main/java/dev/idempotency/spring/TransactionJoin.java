package dev.idempotency.spring;

import dev.idempotency.core.adapter.Execution;

/**
 * Lets the controller's own data access take part in the atomic mode's transaction while the
 * filter runs the chain ({@link SpringTransactionJoin}); a no-op otherwise.
 */
interface TransactionJoin {

    /** Nothing joined: the execution's transaction, if any, stays the engine's alone. */
    TransactionJoin NONE = execution -> Joined.NOTHING;

    /** Called on the request's thread before the chain runs; the result is closed after it. */
    Joined join(Execution execution);

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

        /** Whether a transaction is bound to the request's thread (then the handler must not go asynchronous). */
        boolean inForce();

        /** Whether a participating {@code @Transactional} method marked the transaction rollback-only. */
        boolean rollbackOnly();

        @Override
        void close();
    }
}
