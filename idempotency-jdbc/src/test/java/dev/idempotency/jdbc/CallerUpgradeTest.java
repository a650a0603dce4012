package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.internal.Dialects;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.TableName;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A table from before the caller (V1 only) holding a completed record, upgraded by
 * {@code V4__idempotency_keys_caller.sql} as shipped or by {@link JdbcStore#createTableIfMissing()}:
 * the old record is the anonymous record of its key, a caller's record of the same key is
 * another one, and the primary key is rebuilt once.
 */
class CallerUpgradeTest {

    private static final String MARK = "upgraded once";
    private static final Instant NOW = Instant.parse("2031-03-01T00:00:00Z");
    private static final Duration TTL = Duration.ofHours(24);
    private static final RecordKey OLD = new RecordKey("tenant-a", "POST", "/orders", "before-the-upgrade");
    private static final RecordKey ALICE = new RecordKey(OLD.tenant(), RecordKey.callerOf("alice"), OLD.method(),
            OLD.path(), OLD.key());

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("H2", (Supplier<TestDatabase>) TestDatabase::h2, SQLDialect.H2),
                Arguments.of("PostgreSQL", (Supplier<TestDatabase>) TestDatabase::postgres, SQLDialect.POSTGRES),
                Arguments.of("MariaDB", (Supplier<TestDatabase>) TestDatabase::mariadb, SQLDialect.MARIADB));
    }

    static Stream<Arguments> servers() {
        return databases().skip(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void createTableIfMissingUpgradesAV1TableOnce(String label, Supplier<TestDatabase> database, SQLDialect dialect)
            throws Exception {
        try (TestDatabase db = database.get()) {
            DataSource pool = db.pool("upgrade", 2);
            JdbcStore store = JdbcStore.builder(pool).dialect(dialect).build();
            createV1TableWithACompletedRecord(pool, dialect);
            assertThatThrownBy(store::verifySchema).hasMessageContaining("has no column caller")
                    .hasMessageContaining("V4__idempotency_keys_caller.sql");

            store.createTableIfMissing();
            mark(pool, dialect);
            store.createTableIfMissing();
            JdbcStore.builder(pool).dialect(dialect).verifySchema(true).build().createTableIfMissing();

            assertThat(markFound(pool, dialect)).as("V4 ran once").isEqualTo(MARK);
            assertTheOldRecordIsAnonymousAndCallersAreApart(store);

            runScript(pool, dialect, Ddl.callerScript(Dialects.sqlDialect(dialect))); // V4 again, by hand
            if (dialect == SQLDialect.H2) {
                assertThat(markFound(pool, dialect)).as("H2's V4 changes nothing the second time").isEqualTo(MARK);
            } else {
                assertThat(markFound(pool, dialect)).as("the mark shows a second run").isNotEqualTo(MARK);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void theShippedV4UpgradesAV1Table(String label, Supplier<TestDatabase> database, SQLDialect dialect)
            throws Exception {
        try (TestDatabase db = database.get()) {
            DataSource pool = db.pool("upgrade-v4", 2);
            createV1TableWithACompletedRecord(pool, dialect);

            runScript(pool, dialect, Ddl.callerScript(Dialects.sqlDialect(dialect)));

            JdbcStore store = JdbcStore.builder(pool).dialect(dialect).verifySchema(true).build();
            assertThat(primaryKeyColumns(pool, dialect)).containsExactly("key", "tenant_id", "caller", "method", "path");
            store.createTableIfMissing();
            store.createTableIfMissing();
            assertTheOldRecordIsAnonymousAndCallersAreApart(store);
        }
    }

    /**
     * Instances starting together on a V1 table: every start succeeds, the table is upgraded.
     * PostgreSQL and MariaDB, whose starts take a lock first; H2 serializes no DDL.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void instancesStartingTogetherUpgradeWithoutFailing(String label, Supplier<TestDatabase> database,
                                                        SQLDialect dialect) throws Exception {
        try (TestDatabase db = database.get()) {
            DataSource pool = db.pool("upgrade-together", 4);
            createV1TableWithACompletedRecord(pool, dialect);
            int instances = 4;
            ExecutorService executor = Executors.newFixedThreadPool(instances);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Void>> starts = new ArrayList<>();
                for (int i = 0; i < instances; i++) {
                    JdbcStore instance = JdbcStore.builder(pool).dialect(dialect).build();
                    starts.add(executor.submit((Callable<Void>) () -> {
                        start.await();
                        instance.createTableIfMissing();
                        return null;
                    }));
                }
                start.countDown();
                for (Future<Void> f : starts) {
                    f.get();
                }
            } finally {
                executor.shutdownNow();
            }
            assertTheOldRecordIsAnonymousAndCallersAreApart(JdbcStore.builder(pool).dialect(dialect).build());
        }
    }

    private static void assertTheOldRecordIsAnonymousAndCallersAreApart(JdbcStore store) {
        IdempotencyRecord old = store.find(OLD, NOW.plusSeconds(1)).orElseThrow();
        assertThat(old.key()).isEqualTo(new RecordKey(OLD.tenant(), RecordKey.ANONYMOUS, OLD.method(), OLD.path(),
                OLD.key()));
        assertThat(old.isCompleted()).isTrue();
        assertThat(new String(old.response().body(), StandardCharsets.UTF_8)).isEqualTo("old order");

        assertThat(store.find(ALICE, NOW.plusSeconds(1))).as("a caller's record of the same key").isEmpty();
        ReserveResult alices = store.reserve(ALICE, "b".repeat(64), NOW, Duration.ofSeconds(30), TTL);
        assertThat(alices).isInstanceOf(ReserveResult.Acquired.class);
        assertThat(((ReserveResult.Acquired) alices).reservation().complete(response("alice's order"))).isTrue();

        assertThat(store.find(ALICE, NOW.plusSeconds(2)).orElseThrow().response().body())
                .isEqualTo("alice's order".getBytes(StandardCharsets.UTF_8));
        assertThat(store.find(OLD, NOW.plusSeconds(2)).orElseThrow().response().body())
                .isEqualTo("old order".getBytes(StandardCharsets.UTF_8));
        assertThat(store.reserve(OLD, "a".repeat(64), NOW.plusSeconds(2), Duration.ofSeconds(30), TTL))
                .as("the old record still answers a retry").isInstanceOf(ReserveResult.Existing.class);
    }

    /** V1 as shipped, and the completed row the store wrote before the caller: every V1 column. */
    private static void createV1TableWithACompletedRecord(DataSource pool, SQLDialect dialect) throws SQLException {
        runScript(pool, dialect, Ddl.tableScript(Dialects.sqlDialect(dialect)));
        List<String> v1Columns = Records.COLUMNS.stream().filter(c -> !c.equals("caller")).toList();
        SqlDialect sqlDialect = Dialects.sqlDialect(dialect);
        Placeholders.Sql insert = Placeholders.questionMarks("insert into " + sqlDialect.quote(JdbcStore.DEFAULT_TABLE) + " ("
                + String.join(", ", v1Columns.stream().map(sqlDialect::quote).toList()) + ") values ("
                + String.join(", ", v1Columns.stream().map(c -> ":" + c).toList()) + ")");
        NewRow row = new NewRow(OLD, "a".repeat(64), Records.COMPLETED, "old-token", null,
                response("old order"), NOW.plus(TTL), NOW);
        try (Connection c = pool.getConnection();
             PreparedStatement ps = Rows.prepare(c, insert, sqlDialect, Records.rowValues(row, NOW), 0)) {
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static StoredResponse response(String body) {
        return new StoredResponse(201, "text/plain", Map.of(), body.getBytes(StandardCharsets.UTF_8));
    }

    private static void runScript(DataSource pool, SQLDialect dialect, String resource) throws SQLException {
        List<String> statements = Ddl.statements(Dialects.sqlDialect(dialect), resource,
                TableName.of(JdbcStore.DEFAULT_TABLE), JdbcStore.DEFAULT_TENANT_SETTING);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    /**
     * Leaves {@link #MARK} where running V4 again would remove it: a comment on the primary-key
     * constraint, which PostgreSQL's V4 drops; the table's comment, which MariaDB's V4 sets
     * (MariaDB finds the key already as V4 wants it and rebuilds nothing); on H2, whose V4 does
     * nothing the second time, a comment on the constraint.
     */
    private static void mark(DataSource pool, SQLDialect dialect) throws SQLException {
        String sql = switch (dialect.family()) {
            case POSTGRES -> "COMMENT ON CONSTRAINT idempotency_keys_pkey ON idempotency_keys IS '" + MARK + "'";
            case MARIADB -> "ALTER TABLE idempotency_keys COMMENT = '" + MARK + "'";
            default -> "COMMENT ON CONSTRAINT \"idempotency_keys_caller_pkey\" IS '" + MARK + "'";
        };
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The mark, or what is there instead. */
    private static String markFound(DataSource pool, SQLDialect dialect) throws SQLException {
        return single(pool, switch (dialect.family()) {
            case POSTGRES -> "SELECT obj_description(oid, 'pg_constraint') FROM pg_constraint"
                    + " WHERE conrelid = 'idempotency_keys'::regclass AND contype = 'p'";
            case MARIADB -> "SELECT table_comment FROM information_schema.tables WHERE table_schema = DATABASE()"
                    + " AND table_name = 'idempotency_keys'";
            default -> "SELECT remarks FROM information_schema.table_constraints"
                    + " WHERE table_name = 'idempotency_keys' AND constraint_type = 'PRIMARY KEY'";
        });
    }

    private static List<String> primaryKeyColumns(DataSource pool, SQLDialect dialect) throws SQLException {
        String sql = switch (dialect.family()) {
            case POSTGRES -> "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                    + " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'idempotency_keys'::regclass AND i.indisprimary"
                    + " ORDER BY array_position(i.indkey::int2[], a.attnum)";
            case MARIADB -> "SELECT column_name FROM information_schema.statistics WHERE table_schema = DATABASE()"
                    + " AND table_name = 'idempotency_keys' AND index_name = 'PRIMARY' ORDER BY seq_in_index";
            default -> "SELECT k.column_name FROM information_schema.table_constraints t"
                    + " JOIN information_schema.key_column_usage k ON k.constraint_name = t.constraint_name"
                    + " WHERE t.table_name = 'idempotency_keys' AND t.constraint_type = 'PRIMARY KEY'"
                    + " ORDER BY k.ordinal_position";
        };
        List<String> columns = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                columns.add(rs.getString(1));
            }
        }
        return columns;
    }

    private static String single(DataSource pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            return rs.getString(1);
        }
    }
}
