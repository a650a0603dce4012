package dev.idempotency.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * One connection to the test database through a {@link RoundTripCountingProxy}, lent as a
 * {@link DataSource} that never closes it: nothing but the statements under test crosses the proxy.
 * Skips the test when the database is not on this machine.
 */
final class ProxiedPostgres implements AutoCloseable {

    private final RoundTripCountingProxy proxy;
    private final Connection connection;

    ProxiedPostgres(TestDatabase db) throws Exception {
        Matcher url = Pattern.compile("^jdbc:postgresql://(127\\.0\\.0\\.1|localhost)(?::(\\d+))?/(.*)$")
                .matcher(db.url());
        assumeTrue(url.matches(), "needs a PostgreSQL on this machine to put a proxy in front of");
        proxy = new RoundTripCountingProxy(url.group(2) == null ? 5432 : Integer.parseInt(url.group(2)));
        try {
            connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/"
                    + url.group(3) + "&sslmode=disable&gssEncMode=disable", db.server.user(), db.server.password());
        } catch (SQLException e) {
            proxy.close();
            throw e;
        }
    }

    Connection connection() {
        return connection;
    }

    DataSource dataSource() {
        return new SingleConnection(connection);
    }

    long roundTrips() {
        return proxy.roundTrips();
    }

    @Override
    public void close() throws Exception {
        try {
            connection.close();
        } finally {
            proxy.close();
        }
    }
}
