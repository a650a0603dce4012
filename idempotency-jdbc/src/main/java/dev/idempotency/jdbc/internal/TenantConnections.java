package dev.idempotency.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The store's way to a connection: each call on a pooled connection in autocommit mode, or, with
 * row-level security and a tenant, in a transaction that first sets the tenant; outages translated
 * ({@link SqlFailures#translate}): {@code tenantSetting} is the setting that carries the tenant for
 * row-level security, or {@code null}; {@code tableLabel} the table as configured, for the messages.
 * <p>Internal, not API: may change without notice.
 */
public record TenantConnections(DataSource dataSource, String tenantSetting, String tableLabel) {

    /** Work on one connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a pooled connection in autocommit mode, or — with row-level security
     * and a tenant — in a transaction that first sets the tenant; translates outages.
     */
    public <T> T call(String tenant, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (tenantSetting == null || tenant == null) {
                return work.run(c);
            }
            return inTenantTransaction(c, tenant, work);
        } catch (SQLException | RuntimeException e) {
            throw SqlFailures.translate(e, tableLabel);
        }
    }

    private <T> T inTenantTransaction(Connection c, String tenant, Work<T> work) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            try (PreparedStatement set = c.prepareStatement("SELECT set_config(?, ?, true)")) {
                set.setString(1, tenantSetting);
                set.setString(2, tenant);
                set.execute();
            }
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        } finally {
            try {
                c.setAutoCommit(autoCommit);
            } catch (SQLException ignored) {
                // the pool resets it, or discards a broken connection
            }
        }
    }
}
