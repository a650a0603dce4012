package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The atomic mode's writes, the Quarkus way: {@code @Transactional} (REQUIRED) methods writing on a
 * connection of the Agroal data source. While a keyed request runs, the JDBC store has begun the
 * reservation's JTA transaction on the request's thread, and Agroal lends the connection enlisted
 * in it, so these writes join it and commit with the stored response, or roll back with it —
 * nothing here passes a connection around. The SQL is the shared repository's.
 */
@ApplicationScoped
public class JoinedWrites {

    private final DataSource dataSource;
    private final ExampleApp app;

    JoinedWrites(DataSource dataSource, ExampleApp app) {
        this.dataSource = dataSource;
        this.app = app;
    }

    /** {@code POST /orders}: the order, then the demo's {@code delayMs} pause, inside the transaction. */
    @Transactional
    public Order createOrder(String tenant, NewOrder order, String delayMs) {
        Order created = write(c -> app.repository().createOrder(c, tenant, order));
        ExampleRequests.pause(delayMs);
        return created;
    }

    /** {@code POST /payments}. */
    @Transactional
    public Payment createPayment(String tenant, NewPayment payment) {
        return write(c -> app.repository().createPayment(c, tenant, payment));
    }

    private interface Write<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Database errors are a 503 problem, as everywhere in the examples. */
    private <T> T write(Write<T> write) {
        try (Connection connection = dataSource.getConnection()) {
            return write.run(connection);
        } catch (SQLException e) {
            throw ProblemException.databaseUnavailable(e);
        }
    }
}
