package dev.idempotency.examples.webflux;

import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import java.time.Duration;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;

/**
 * The atomic mode's writes, the reactive Spring way: {@link R2dbcShop}'s {@code DatabaseClient}
 * statements inside a {@link TransactionalOperator} (REQUIRED) of an
 * {@link R2dbcTransactionManager} on the same pool as {@code R2dbcStore}. While a keyed request
 * runs, the idempotency filter has bound the reservation's connection to that pool as Spring's
 * current reactive transaction, so the operator joins it: the order or payment commits with the
 * stored response or rolls back with it, and nothing passes a connection around.
 */
final class JoinedWrites {

    private final R2dbcShop shop;
    private final TransactionalOperator transaction;

    JoinedWrites(R2dbcShop shop) {
        this.shop = shop;
        this.transaction = TransactionalOperator.create(new R2dbcTransactionManager(shop.pool()));
    }

    /** {@code POST /orders}: the order, then the demo's {@code delayMs} pause, inside the transaction. */
    Mono<Order> createOrder(String tenant, NewOrder order, Duration delay) {
        return transaction.transactional(shop.createOrder(tenant, order)
                .delayUntil(created -> delay.isZero() ? Mono.empty() : Mono.delay(delay)));
    }

    /** {@code POST /payments}. */
    Mono<Payment> createPayment(String tenant, NewPayment payment) {
        return transaction.transactional(shop.createPayment(tenant, payment));
    }
}
