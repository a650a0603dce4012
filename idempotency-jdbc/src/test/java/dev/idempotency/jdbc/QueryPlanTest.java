package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

/**
 * EXPLAIN of every step on a table of 20,000 rows: the lookups go through the primary key and
 * the purge through the {@code expires_at} index, never a scan of the table. The plans are written
 * to {@code target/query-plans.txt} (the README quotes them).
 */
class QueryPlanTest {

    private static final int ROWS = 20_000;

    @Test
    void postgresUsesThePrimaryKeyForEveryStepAndTheExpiryIndexToPurge() throws IOException {
        try (TestDatabase db = TestDatabase.postgres()) {
            JdbcStore.create(db.pool("plans", 2)).createTableIfMissing();
            db.execute("INSERT INTO idempotency_keys (key, tenant_id, method, path, request_hash, state, owner_token, "
                    + "response_status, response_body, format_version, expires_at, created_at) "
                    + "SELECT 'key-' || i, 'tenant-' || (i % 50), 'POST', '/orders', md5(i::text), 'COMPLETED', "
                    + "md5(i::text), 201, '\\x7b7d'::bytea, 1, timestamptz '2030-01-02' + i * interval '1 second', "
                    + "timestamptz '2030-01-01' FROM generate_series(1, " + ROWS + ") i");
            db.execute("ANALYZE idempotency_keys");

            List<String> plans = explainAll(db, SQLDialect.POSTGRES, "EXPLAIN ");
            for (String plan : plans) {
                assertThat(plan).doesNotContain("Seq Scan");
            }
            assertThat(plans.get(0)).contains("idempotency_keys_pkey");
            assertThat(plans.get(1)).contains("Index Scan using idempotency_keys_pkey")
                    .contains("(caller = '\\x'::bytea) AND (method = 'POST'::text) AND (path = '/orders'::text))");
            assertThat(plans.get(6)).contains("idempotency_keys_expires_at_idx");
            write("postgres", plans);
        }
    }

    /**
     * A tenth of the rows expired, all at the start of the heap (written first, as old records
     * are): without an order the planner takes a sequential scan that stops after one batch — and
     * the run's last batch, which finds nothing, then reads the whole heap. Ordered by expiry,
     * every batch goes through the index.
     */
    @Test
    void postgresPurgesThroughTheExpiryIndexWhenATenthOfTheRowsExpiredTogether() {
        try (TestDatabase db = TestDatabase.postgres()) {
            JdbcStore.create(db.pool("plans", 2)).createTableIfMissing();
            db.execute("INSERT INTO idempotency_keys (key, tenant_id, method, path, request_hash, state, owner_token, "
                    + "response_status, response_body, format_version, expires_at, created_at) "
                    + "SELECT 'key-' || i, 'tenant-' || (i % 50), 'POST', '/orders', md5(i::text), 'COMPLETED', "
                    + "md5(i::text), 201, '\\x7b7d'::bytea, 1, timestamptz '2030-01-01 00:00:00+00' + (i - " + ROWS / 10
                    + ") * interval '1 second', timestamptz '2029-12-01 00:00:00+00' FROM generate_series(1, " + ROWS + ") i");
            db.execute("ANALYZE idempotency_keys");

            String plan = explain(db, "EXPLAIN ", SqlSamples.statements(SQLDialect.POSTGRES).sql("purge"), SqlDialect.POSTGRES);

            assertThat(plan).contains("idempotency_keys_expires_at_idx").doesNotContain("Seq Scan");
        }
    }

    @Test
    void mariaDbReadsOneRowByPrimaryKeyAndPurgesThroughTheExpiryIndex() throws IOException {
        try (TestDatabase db = TestDatabase.mariadb()) {
            JdbcStore.create(db.pool("plans", 2)).createTableIfMissing();
            db.execute("INSERT INTO idempotency_keys (`key`, tenant_id, method, path, request_hash, state, owner_token, "
                    + "response_status, response_body, format_version, expires_at, created_at) "
                    + "SELECT CONCAT('key-', seq), CONCAT('tenant-', seq % 50), 'POST', '/orders', MD5(seq), 'COMPLETED', "
                    + "MD5(seq), 201, '{}', 1, TIMESTAMP '2030-01-02 00:00:00' + INTERVAL seq SECOND, "
                    + "TIMESTAMP '2030-01-01 00:00:00' FROM seq_1_to_" + ROWS);
            db.execute("ANALYZE TABLE idempotency_keys");

            SqlCatalog sql = SqlSamples.statements(SQLDialect.MARIADB);
            String find = explain(db, "EXPLAIN FORMAT=JSON ", sql.sql("find"), SqlDialect.MARIADB);
            String complete = explain(db, "EXPLAIN FORMAT=JSON ", sql.sql("complete"), SqlDialect.MARIADB);
            String purge = explain(db, "EXPLAIN FORMAT=JSON ", sql.sql("purge"), SqlDialect.MARIADB);
            assertThat(find).contains("\"key\": \"PRIMARY\"").doesNotContain("\"access_type\": \"ALL\"")
                    .contains("\"used_key_parts\": [\"key\", \"tenant_id\", \"caller\", \"method\", \"path\"]");
            assertThat(complete).contains("\"key\": \"PRIMARY\"").doesNotContain("\"access_type\": \"ALL\"");
            assertThat(purge).contains("idempotency_keys_expires_at_idx").doesNotContain("\"access_type\": \"ALL\"");
            write("mariadb", List.of(find, complete, purge));
        }
    }

    private static List<String> explainAll(TestDatabase db, SQLDialect dialect, String prefix) {
        List<String> plans = new ArrayList<>();
        SqlCatalog sql = SqlSamples.statements(dialect);
        for (SqlSteps.Step step : SqlSteps.of(sql)) {
            StringBuilder plan = new StringBuilder("-- " + step.name() + "\n");
            for (String statement : step.statements()) {
                plan.append(explain(db, prefix, statement, sql.dialect()));
            }
            plans.add(plan.toString());
        }
        return plans;
    }

    /** EXPLAIN of the statement as the store sends it, with the sample values bound. */
    private static String explain(TestDatabase db, String prefix, String statement, SqlDialect dialect) {
        Placeholders.Sql explained = Placeholders.questionMarks(prefix + statement);
        try (Connection c = DriverManager.getConnection(db.url(), db.server.user(), db.server.password());
             PreparedStatement ps = Rows.prepare(c, explained, dialect, SqlSamples.values(), 0);
             ResultSet rs = ps.executeQuery()) {
            StringBuilder out = new StringBuilder();
            while (rs.next()) {
                out.append(rs.getString(1)).append('\n');
            }
            return out.toString();
        } catch (SQLException e) {
            throw new IllegalStateException(explained.text(), e);
        }
    }

    private static void write(String name, List<String> plans) throws IOException {
        Path file = Path.of("target", "query-plans-" + name + ".txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", plans), StandardCharsets.UTF_8);
    }
}
