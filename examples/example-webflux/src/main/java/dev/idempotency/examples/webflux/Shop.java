package dev.idempotency.examples.webflux;

import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The orders and payments, reactively: over R2DBC on PostgreSQL ({@link R2dbcShop}), else the
 * shared JDBC repository off the event loop ({@link JdbcShop}). A database failure is a
 * {@code ProblemException.databaseUnavailable} (503), as in every example. Closing it closes its
 * connections.
 */
interface Shop extends AutoCloseable {

    Mono<Order> createOrder(String tenant, NewOrder order);

    Mono<List<Order>> orders(String tenant);

    /** One of the tenant's orders; empty when it does not exist or belongs to another tenant. */
    Mono<Order> order(String tenant, long id);

    Mono<Payment> createPayment(String tenant, NewPayment payment);

    Mono<List<Payment>> payments(String tenant);

    /** Where the data is, for the start-up line, e.g. {@code R2DBC}. */
    String description();

    @Override
    void close();
}
