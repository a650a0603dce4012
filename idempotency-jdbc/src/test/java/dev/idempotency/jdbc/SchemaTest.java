package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.TableName;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

/** The shipped DDL, the development create-if-missing, table names, dialect detection and options. */
class SchemaTest {

    private static final Instant NOW = Instant.parse("2031-01-01T00:00:00Z");
    private static final RecordKey KEY = new RecordKey("t", "POST", "/orders", "schema-key");

    @Test
    void everyDialectShipsItsDdlAsAClasspathResource() throws Exception {
        for (SQLDialect dialect : List.of(SQLDialect.POSTGRES, SQLDialect.MARIADB, SQLDialect.MYSQL, SQLDialect.H2)) {
            try (InputStream in = getClass().getClassLoader().getResourceAsStream(JdbcStore.ddlResource(dialect))) {
                assertThat(in).as(JdbcStore.ddlResource(dialect)).isNotNull();
                String ddl = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertThat(ddl).contains("CREATE TABLE IF NOT EXISTS").contains("expires_at_idx")
                        .contains("owner_token").contains("locked_until").contains("format_version");
            }
        }
        assertThat(getClass().getClassLoader().getResource("db/idempotency/postgresql-rls/V2__idempotency_keys_rls.sql"))
                .isNotNull();
        assertThat(getClass().getClassLoader().getResource(Ddl.fillfactorScript())).isNotNull();
    }

    @Test
    void onPostgresTheTableKeepsRoomForHotCompletions() throws Exception {
        try (TestDatabase db = TestDatabase.postgres()) {
            DataSource pool = db.pool("fillfactor", 1);
            JdbcStore.create(pool).createTableIfMissing();
            JdbcStore.builder(pool).tableName(db.name + ".payment_keys").build().createTableIfMissing();
            JdbcStore.create(pool).createTableIfMissing();
            for (String table : List.of("idempotency_keys", "payment_keys")) {
                try (var c = pool.getConnection(); var ps = c.prepareStatement("SELECT array_to_string(reloptions, ',') "
                        + "FROM pg_class WHERE oid = to_regclass(?)")) {
                    ps.setString(1, db.name + "." + table);
                    try (var rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).as(table).isEqualTo("fillfactor=70");
                    }
                }
            }
        }
    }

    @Test
    void onPostgresAFillfactorTheOwnerTunedIsLeftAlone() throws Exception {
        try (TestDatabase db = TestDatabase.postgres()) {
            DataSource pool = db.pool("tuned", 1);
            JdbcStore.create(pool).createTableIfMissing();
            try (var c = pool.getConnection(); var st = c.createStatement()) {
                st.execute("ALTER TABLE idempotency_keys SET (fillfactor = 50)");
            }
            JdbcStore.create(pool).createTableIfMissing();
            try (var c = pool.getConnection(); var ps = c.prepareStatement("SELECT array_to_string(reloptions, ',') "
                    + "FROM pg_class WHERE oid = to_regclass(?)")) {
                ps.setString(1, db.name + ".idempotency_keys");
                try (var rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("fillfactor=50");
                }
            }
        }
    }

    @Test
    void createTableIfMissingRunsTwiceOnEveryDatabase() {
        for (TestDatabase db : List.of(TestDatabase.postgres(), TestDatabase.mariadb(), TestDatabase.h2())) {
            try (db) {
                JdbcStore store = JdbcStore.create(db.pool("ddl", 2));
                store.createTableIfMissing();
                store.createTableIfMissing();
                assertThat(store.reserve(KEY, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                        .isInstanceOf(ReserveResult.Acquired.class);
            }
        }
    }

    /**
     * idempotency-spring's quick start: H2 runs V1 and V4 on every new connection (its INIT). The
     * table passes the schema check, and connections opened later (running both again) keep the
     * records and the caller's part of the key.
     */
    @Test
    void h2RunsV1AndV4AgainOnEveryConnection() throws Exception {
        String url = "jdbc:h2:mem:init_" + java.util.UUID.randomUUID().toString().replace("-", "")
                + ";DB_CLOSE_DELAY=-1;INIT=RUNSCRIPT FROM 'classpath:db/idempotency/h2/V1__idempotency_keys.sql'"
                + "\\;RUNSCRIPT FROM 'classpath:db/idempotency/h2/V4__idempotency_keys_caller.sql'";
        RecordKey alice = new RecordKey(KEY.tenant(), RecordKey.callerOf("alice"), KEY.method(), KEY.path(), KEY.key());
        try (var first = new com.zaxxer.hikari.HikariDataSource()) {
            first.setJdbcUrl(url);
            first.setMaximumPoolSize(1);
            JdbcStore store = JdbcStore.builder(first).verifySchema(true).build();
            assertThat(store.reserve(KEY, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(ReserveResult.Acquired.class);
            try (var later = java.sql.DriverManager.getConnection(url)) {
                assertThat(later.isValid(1)).isTrue();
            }
            assertThat(store.find(KEY, NOW)).isPresent();
            assertThat(store.reserve(alice, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(ReserveResult.Acquired.class);
            assertThat(store.reserve(KEY, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(ReserveResult.Existing.class);
            try (var c = java.sql.DriverManager.getConnection(url); var s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }

    @Test
    void aCustomSchemaQualifiedTableGetsItsOwnIndexAndConstraintNames() {
        try (TestDatabase db = TestDatabase.postgres()) {
            DataSource pool = db.pool("custom", 2);
            JdbcStore store = JdbcStore.builder(pool).tableName(db.name + ".payment_keys").build();
            store.createTableIfMissing();
            JdbcStore.create(pool).createTableIfMissing();
            assertThat(store.tableName()).isEqualTo(db.name + ".payment_keys");
            assertThat(store.reserve(KEY, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(ReserveResult.Acquired.class);
            assertThat(JdbcStore.create(pool).find(KEY, NOW)).as("the default table is another table").isEmpty();
            db.execute("SELECT 'payment_keys_expires_at_idx'::regclass, 'payment_keys_pkey'::regclass");
        }
    }

    @Test
    void aTenantColumnRetypedAsUuidWorksWhenTheDriverSendsUntypedStrings() {
        try (TestDatabase db = TestDatabase.postgres()) {
            JdbcStore.create(db.pool("uuid-ddl", 1)).createTableIfMissing();
            db.execute("ALTER TABLE idempotency_keys ALTER COLUMN tenant_id TYPE uuid USING tenant_id::uuid");
            JdbcStore store = JdbcStore.create(db.pool("uuid", 2, db.url() + "&stringtype=unspecified",
                    db.server.user(), db.server.password()));
            RecordKey key = new RecordKey(java.util.UUID.randomUUID().toString(), "POST", "/orders", "k");

            assertThat(store.reserve(key, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(ReserveResult.Acquired.class);
            assertThat(store.reserve(key, "f", NOW, Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(ReserveResult.Existing.class);
            assertThat(store.find(key, NOW)).isPresent();
            assertThatThrownBy(() -> store.find(new RecordKey("not-a-uuid", "POST", "/orders", "k"), NOW))
                    .hasMessageContaining("uuid");
        }
    }

    @Test
    void theDialectIsDetectedFromTheConnection() {
        try (TestDatabase pg = TestDatabase.postgres(); TestDatabase maria = TestDatabase.mariadb();
             TestDatabase h2 = TestDatabase.h2()) {
            assertThat(JdbcStore.create(pg.pool("detect", 1)).dialect().family()).isEqualTo(SQLDialect.POSTGRES);
            assertThat(JdbcStore.create(maria.pool("detect", 1)).dialect().family()).isEqualTo(SQLDialect.MARIADB);
            String mysqlScheme = maria.url().replaceFirst("^jdbc:mariadb:", "jdbc:mysql:")
                    + (maria.url().contains("?") ? "&" : "?") + "permitMysqlScheme";
            assertThat(JdbcStore.create(maria.pool("detect-mysql-url", 1, mysqlScheme, maria.server.user(),
                    maria.server.password())).dialect()).as("MariaDB behind a jdbc:mysql: URL").isEqualTo(SQLDialect.MARIADB);
            assertThat(JdbcStore.create(h2.pool("detect", 1)).dialect().family()).isEqualTo(SQLDialect.H2);
        }
    }

    @Test
    void nonsenseOptionsFailAtBuildTime() {
        try (TestDatabase h2 = TestDatabase.h2()) {
            DataSource pool = h2.pool("options", 1);
            assertThatThrownBy(() -> JdbcStore.builder(pool).tableName("idempotency keys"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> JdbcStore.builder(pool).tableName("a.b.c"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> JdbcStore.builder(pool).tenantSetting("tenant"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> JdbcStore.builder(pool).rowLevelSecurity(true).build())
                    .hasMessageContaining("PostgreSQL");
            assertThatThrownBy(() -> JdbcStore.builder(pool).dialect(SQLDialect.SQLITE).build())
                    .hasMessageContaining("Unsupported");
            assertThatThrownBy(() -> JdbcStore.create(pool).purgeExpired(NOW, 0))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void ddlStatementsAreAdaptedToTheTableNameAndSetting() {
        List<String> statements = Ddl.statements(SqlDialect.POSTGRES, Ddl.rowLevelSecurityScript(),
                TableName.of("app.keys"), "app.tenant");
        assertThat(statements).hasSize(4);
        assertThat(String.join("\n", statements))
                .contains("ALTER TABLE \"app\".\"keys\" ENABLE ROW LEVEL SECURITY")
                .contains("POLICY \"keys_tenant_isolation\" ON \"app\".\"keys\"")
                .contains("current_setting('app.tenant', true)")
                .doesNotContain("idempotency_keys");
    }
}
