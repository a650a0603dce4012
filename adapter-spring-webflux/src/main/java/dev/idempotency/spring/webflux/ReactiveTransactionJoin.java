package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.Execution;
import reactor.core.publisher.Mono;

/**
 * Lets the handler's own data access take part in the atomic mode's transaction while the filter
 * runs the chain ({@link R2dbcTransactionJoin}); a no-op otherwise.
 */
interface ReactiveTransactionJoin {

    /** Nothing joined: the execution's transaction, if any, stays the engine's alone. */
    ReactiveTransactionJoin NONE = execution -> Joined.NOTHING;

    /** Called once the execution goes ahead, before the chain runs. */
    Joined join(Execution execution);

    /** What one execution joined. */
    interface Joined {

        Joined NOTHING = new Joined() {
            @Override
            public Mono<Void> around(Mono<Void> chain) {
                return chain;
            }

            @Override
            public boolean rollbackOnly() {
                return false;
            }
        };

        /** {@code chain} with the transaction as the current one of its subscribers. */
        Mono<Void> around(Mono<Void> chain);

        /** Whether a participating {@code @Transactional} method marked the transaction rollback-only. */
        boolean rollbackOnly();
    }
}
