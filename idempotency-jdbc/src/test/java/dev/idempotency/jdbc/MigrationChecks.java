package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/** What the migration-tool tests check once a tool has run: the application starts on the schema. */
final class MigrationChecks {

    private static final Instant NOW = Instant.parse("2031-01-01T00:00:00Z");

    private MigrationChecks() {
    }

    /**
     * A store that verifies the schema at build reserves and completes a record, which reads back
     * completed; a caller's record of the same key is another record.
     */
    static void storeWorks(DataSource pool) {
        JdbcStore store = JdbcStore.builder(pool).verifySchema(true).build();
        RecordKey key = new RecordKey("tenant-a", "POST", "/orders", "migrated-key");

        ReserveResult reserved = store.reserve(key, "fingerprint", NOW, Duration.ofSeconds(30), Duration.ofHours(24));
        assertThat(reserved).isInstanceOf(ReserveResult.Acquired.class);
        boolean completed = ((ReserveResult.Acquired) reserved).reservation()
                .complete(new StoredResponse(201, "application/json", Map.of(), "{\"id\":1}".getBytes()));

        assertThat(completed).isTrue();
        Optional<IdempotencyRecord> found = store.find(key, NOW.plusSeconds(1));
        assertThat(found).hasValueSatisfying(r -> {
            assertThat(r.isCompleted()).isTrue();
            assertThat(r.response().status()).isEqualTo(201);
        });
        RecordKey callers = new RecordKey(key.tenant(), RecordKey.callerOf("alice"), key.method(), key.path(), key.key());
        assertThat(store.find(callers, NOW.plusSeconds(1))).isEmpty();
        assertThat(store.reserve(callers, "fingerprint", NOW, Duration.ofSeconds(30), Duration.ofHours(24)))
                .isInstanceOf(ReserveResult.Acquired.class);
    }

    /** Whether a table of that name is visible in the pool's schema or database. */
    static boolean tableExists(DataSource pool, String table) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM information_schema.tables "
                     + "WHERE table_name = ? AND table_schema = " + (c.getMetaData().getURL().startsWith("jdbc:postgresql")
                     ? "current_schema()" : "database()"))) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    /** PostgreSQL: the storage options of a table, e.g. {@code fillfactor=70}, or null. */
    static String reloptions(DataSource pool, String table) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT array_to_string(reloptions, ',') FROM pg_class "
                     + "WHERE oid = to_regclass(?)")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("table %s", table).isTrue();
                return rs.getString(1);
            }
        }
    }

    /** The versions a Flyway history table recorded as successful, in installed order. */
    static java.util.List<String> appliedVersions(DataSource pool, String historyTable) throws SQLException {
        java.util.List<String> versions = new java.util.ArrayList<>();
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT version, description FROM " + historyTable
                     + " WHERE success ORDER BY installed_rank");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                versions.add(rs.getString(1) + " " + rs.getString(2));
            }
        }
        return versions;
    }
}
