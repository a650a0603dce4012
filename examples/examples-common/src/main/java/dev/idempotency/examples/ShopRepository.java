package dev.idempotency.examples;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Orders and payments per tenant, in plain JDBC. Every write has a form that takes a
 * {@link Connection}, so a caller that owns a transaction (the atomic mode, where the handler's
 * writes commit together with the idempotency record) can run it there; the other forms take a
 * connection from the pool and commit on their own.
 *
 * <p>{@link SQLException}s are rethrown as {@link ProblemException#databaseUnavailable}: for the example
 * service a database error is a retryable 503 problem.
 */
public final class ShopRepository {

    private final DataSource dataSource;

    public ShopRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Stores a new order with status {@code created}. */
    public Order createOrder(String tenant, NewOrder order) {
        return withConnection(c -> createOrder(c, tenant, order));
    }

    /** {@link #createOrder(String, NewOrder)} on the caller's connection (and transaction). */
    public Order createOrder(Connection connection, String tenant, NewOrder order) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO example_orders (tenant, item, quantity, status) VALUES (?, ?, ?, ?)", new String[] {"id"})) {
            insert.setString(1, tenant);
            insert.setString(2, order.item());
            insert.setInt(3, order.quantity());
            insert.setString(4, "created");
            insert.executeUpdate();
            return new Order(generatedId(insert), order.item(), order.quantity(), "created");
        }
    }

    /** The tenant's orders, oldest first. */
    public List<Order> orders(String tenant) {
        return withConnection(c -> {
            try (PreparedStatement select = c.prepareStatement(
                    "SELECT id, item, quantity, status FROM example_orders WHERE tenant = ? ORDER BY id")) {
                select.setString(1, tenant);
                return readOrders(select);
            }
        });
    }

    /** One of the tenant's orders; empty when it does not exist or belongs to another tenant. */
    public Optional<Order> order(String tenant, long id) {
        return withConnection(c -> {
            try (PreparedStatement select = c.prepareStatement(
                    "SELECT id, item, quantity, status FROM example_orders WHERE tenant = ? AND id = ?")) {
                select.setString(1, tenant);
                select.setLong(2, id);
                return readOrders(select).stream().findFirst();
            }
        });
    }

    /** Records a payment attempt whose status is the requested outcome. */
    public Payment createPayment(String tenant, NewPayment payment) {
        return withConnection(c -> createPayment(c, tenant, payment));
    }

    /** {@link #createPayment(String, NewPayment)} on the caller's connection (and transaction). */
    public Payment createPayment(Connection connection, String tenant, NewPayment payment) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO example_payments (tenant, amount, status) VALUES (?, ?, ?)", new String[] {"id"})) {
            insert.setString(1, tenant);
            insert.setInt(2, payment.amount());
            insert.setString(3, payment.outcome());
            insert.executeUpdate();
            return new Payment(generatedId(insert), payment.amount(), payment.outcome());
        }
    }

    /** The tenant's payment attempts, oldest first. */
    public List<Payment> payments(String tenant) {
        return withConnection(c -> {
            try (PreparedStatement select = c.prepareStatement(
                    "SELECT id, amount, status FROM example_payments WHERE tenant = ? ORDER BY id")) {
                select.setString(1, tenant);
                List<Payment> payments = new ArrayList<>();
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        payments.add(new Payment(rs.getLong(1), rs.getInt(2), rs.getString(3)));
                    }
                }
                return payments;
            }
        });
    }

    private static List<Order> readOrders(PreparedStatement select) throws SQLException {
        List<Order> orders = new ArrayList<>();
        try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                orders.add(new Order(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getString(4)));
            }
        }
        return orders;
    }

    private static long generatedId(PreparedStatement insert) throws SQLException {
        try (ResultSet keys = insert.getGeneratedKeys()) {
            if (!keys.next()) {
                throw new SQLException("the database returned no generated id");
            }
            return keys.getLong(1);
        }
    }

    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private <T> T withConnection(Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw ProblemException.databaseUnavailable(e);
        }
    }
}
