package dev.idempotency.amqp;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * A throwaway PostgreSQL schema with the JDBC store's table and a table of a handler's effects (one row
 * per body written); dropped on {@link #close()}.
 */
public final class EffectsTable implements AutoCloseable {

    private final PostgresTestSchema schema = new PostgresTestSchema();
    private final HikariDataSource pool = new HikariDataSource();
    public final JdbcStore store;

    public EffectsTable() {
        schema.execute("CREATE TABLE effects (id BIGSERIAL PRIMARY KEY, body VARCHAR(100) NOT NULL)");
        pool.setJdbcUrl(schema.url());
        pool.setUsername(PostgresTestSchema.USER);
        pool.setPassword(PostgresTestSchema.PASSWORD);
        pool.setMaximumPoolSize(10);
        store = JdbcStore.create(pool);
        store.createTableIfMissing();
    }

    /** Writes {@code body} as an effect through {@code transaction} (the call's). */
    public static void write(Connection transaction, byte[] body) throws Exception {
        try (PreparedStatement insert = transaction.prepareStatement("INSERT INTO effects (body) VALUES (?)")) {
            insert.setString(1, new String(body));
            insert.executeUpdate();
        }
    }

    /** The committed effects' bodies, sorted. */
    public List<String> effects() throws Exception {
        List<String> bodies = new ArrayList<>();
        try (Connection c = pool.getConnection(); PreparedStatement select = c.prepareStatement(
                "SELECT body FROM effects ORDER BY body"); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                bodies.add(rs.getString(1));
            }
        }
        return bodies;
    }

    @Override
    public void close() {
        pool.close();
        schema.close();
    }
}
