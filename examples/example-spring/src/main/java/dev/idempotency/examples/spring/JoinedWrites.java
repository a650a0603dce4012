package dev.idempotency.examples.spring;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The atomic mode's writes, the Spring way: a {@code @Transactional} (REQUIRED) service writing
 * with {@code JdbcTemplate}. While a keyed request runs, the idempotency filter has bound the
 * reservation's transaction to the data source as Spring's current one, so these methods join it
 * and their rows commit with the stored response, or roll back with it — nothing here passes a
 * connection around. ({@code JdbcTemplate.execute(ConnectionCallback)} hands the shared repository
 * Spring's current connection, so every example runs the same SQL.)
 */
@Service
public class JoinedWrites {

    private final JdbcTemplate jdbc;
    private final ExampleApp app;

    JoinedWrites(JdbcTemplate jdbc, ExampleApp app) {
        this.jdbc = jdbc;
        this.app = app;
    }

    /** {@code POST /orders}: the order, then the demo's {@code delayMs} pause, inside the transaction. */
    @Transactional
    public Order createOrder(String tenant, NewOrder order, String delayMs) {
        Order created = write(() -> jdbc.execute(
                (ConnectionCallback<Order>) c -> app.repository().createOrder(c, tenant, order)));
        ExampleRequests.pause(delayMs);
        return created;
    }

    /** {@code POST /payments}. */
    @Transactional
    public Payment createPayment(String tenant, NewPayment payment) {
        return write(() -> jdbc.execute(
                (ConnectionCallback<Payment>) c -> app.repository().createPayment(c, tenant, payment)));
    }

    private interface Write<T> {
        T run();
    }

    /** Database errors are a 503 problem, as everywhere in the examples. */
    private static <T> T write(Write<T> write) {
        try {
            return write.run();
        } catch (DataAccessException e) {
            throw ProblemException.databaseUnavailable(e);
        }
    }
}
