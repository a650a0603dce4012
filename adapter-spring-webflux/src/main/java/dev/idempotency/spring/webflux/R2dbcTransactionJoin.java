package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.Execution;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.r2dbc.connection.ConnectionHolder;
import org.springframework.transaction.reactive.TransactionContextManager;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Mono;

/**
 * The atomic mode inside Spring's reactive transaction management: while the chain runs, the
 * reservation's R2DBC connection — the one whose transaction commits with the stored response, or
 * rolls back with it — is bound to the {@link ConnectionFactory} it was taken from
 * ({@code execution.unwrap(ConnectionFactory.class)}) as the current transaction of the chain's
 * Reactor context, as {@code R2dbcTransactionManager} binds its own. Only code on that same factory
 * joins: {@code DatabaseClient}, {@code R2dbcEntityTemplate} and
 * {@code ConnectionFactoryUtils.getConnection(factory)} write through it, and a
 * {@code @Transactional} (REQUIRED) reactive method or a {@code TransactionalOperator} joins it
 * instead of opening another; one that fails marks it rollback-only, which the filter honours by
 * rolling everything back. {@code REQUIRES_NEW} still opens a transaction of its own.
 *
 * <p>The engine commits and rolls back; Spring, participating only, does neither. Nothing is bound
 * when the context already has a transaction on that factory.
 */
final class R2dbcTransactionJoin implements ReactiveTransactionJoin {

    private static final Logger log = LoggerFactory.getLogger(R2dbcTransactionJoin.class);

    @Override
    public Joined join(Execution execution) {
        Optional<Connection> connection = execution.unwrap(Connection.class);
        Optional<ConnectionFactory> factory = execution.unwrap(ConnectionFactory.class);
        if (connection.isEmpty() || factory.isEmpty()) {
            return Joined.NOTHING; // not the atomic mode of a store on R2DBC
        }
        ConnectionHolder holder = new ConnectionHolder(connection.get(), true);
        return new Joined() {
            @Override
            public Mono<Void> around(Mono<Void> chain) {
                return TransactionSynchronizationManager.forCurrentTransaction().flatMap(transactions -> {
                    if (transactions.hasResource(factory.get())) {
                        log.debug("A Spring transaction is already bound to the connection factory; the atomic "
                                + "transaction of key_preview={} is not joined", execution.key().keyPreview());
                        return chain;
                    }
                    transactions.bindResource(factory.get(), holder);
                    return chain.doFinally(signal -> transactions.unbindResourceIfPossible(factory.get()));
                })
                        .contextWrite(TransactionContextManager.getOrCreateContext())
                        .contextWrite(TransactionContextManager.getOrCreateContextHolder());
            }

            @Override
            public boolean rollbackOnly() {
                return holder.isRollbackOnly();
            }
        };
    }
}
