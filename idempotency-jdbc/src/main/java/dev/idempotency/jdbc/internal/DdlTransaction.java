package dev.idempotency.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Runs {@code createTableIfMissing}'s DDL ({@link dev.idempotency.sql.Ddl}) on one connection.
 * <p>Internal, not API: may change without notice.
 */
public final class DdlTransaction {

    private DdlTransaction() {
    }

    /** What to run, decided on the connection once it holds the lock. */
    @FunctionalInterface
    public interface Plan {
        List<String> statements(Connection connection) throws SQLException;
    }

    /**
     * Runs the planned statements on one connection, in one transaction (as far as the database
     * keeps DDL in one); after {@code lock} ((the DDL lock)) first when there is one,
     * so instances starting together do not race, and the plan sees what the one before did;
     * {@code unlock} ((its release)), when there is one, runs last.
     */
    public static void run(Connection connection, String lock, String unlock, Plan plan) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            try {
                if (lock != null) {
                    s.execute(lock);
                }
                for (String sql : plan.statements(connection)) {
                    s.execute(sql);
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                if (unlock != null) {
                    try {
                        s.execute(unlock);
                    } catch (SQLException failedUnlock) {
                        e.addSuppressed(failedUnlock);
                    }
                }
                throw e;
            }
            if (unlock != null) {
                s.execute(unlock);
            }
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
