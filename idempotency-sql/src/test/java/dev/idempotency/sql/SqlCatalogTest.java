package dev.idempotency.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SqlCatalogTest {

    @Test
    void everyDialectHasTheStatementsEveryStoreRuns() {
        for (SqlDialect dialect : SqlDialect.values()) {
            SqlCatalog catalog = SqlCatalog.of(dialect, "app.idempotency_keys");
            for (String name : List.of("find", "readBack", "complete", "release", "renew", "purge", "columnsProbe",
                    "columnsRowProbe")) {
                assertThat(catalog.sql(name)).as(dialect + " " + name)
                        .contains(dialect.quote("app") + "." + dialect.quote("idempotency_keys"))
                        .doesNotContain("{", "}", ";");
            }
        }
        assertThat(SqlCatalog.of(SqlDialect.MARIADB, "t").sql("upsert")).contains("on duplicate key update", "returning");
        assertThat(SqlCatalog.of(SqlDialect.MYSQL, "t").sql("upsert")).contains("as excluded").doesNotContain("returning");
        assertThat(SqlCatalog.of(SqlDialect.H2, "t").sql("upsert")).contains("merge into", "when matched and");
    }

    @Test
    void postgresReservationVariantsAddTheirColumnsToBothBranches() {
        SqlCatalog catalog = SqlCatalog.of(SqlDialect.POSTGRES, "idempotency_keys");
        for (boolean fresh : new boolean[] {true, false}) {
            assertThat(catalog.sql(fresh ? "reserveFresh" : "reserve")).doesNotContain("{won}", "{lost}", "commit_mode");
            assertThat(catalog.sql(fresh ? "reserveFreshAsynchronousCommit" : "reserveAsynchronousCommit"))
                    .contains("set_config('synchronous_commit', 'off', true) as \"commit_mode\"",
                            "null as \"commit_mode\"");
            String locking = catalog.sql(fresh ? "atomicReserveFresh" : "atomicReserve");
            assertThat(Placeholders.numberedCasts(locking).parameters())
                    .contains("key_lock_high", "key_lock_low", "body_lock");
            assertThat(locking).contains("cast(null as void) as \"body_lock\"");
        }
        assertThat(catalog.sql("reserveFresh")).contains("do nothing").doesNotContain("do update");
        assertThat(catalog.sql("reserve")).contains("where not exists", "do update");
        assertThat(catalog.sql("atomicSettingsWithTenant")).endsWith(", set_config(:tenant_setting, :tenant, true)");
        assertThat(catalog.sql("atomicSettings")).doesNotContain("{tenant}", ":tenant");
    }

    @Test
    void boundsAndLockWaits() {
        SqlCatalog pg = SqlCatalog.of(SqlDialect.POSTGRES, "t");
        assertThat(pg.localStatementTimeout(1500, false)).contains("interval '1500ms'", "'1500ms'")
                .doesNotContain("session_statement_timeout");
        assertThat(pg.localStatementTimeout(1500, true)).startsWith("SELECT set_config('idempotency.session_statement_timeout'");
        assertThatThrownBy(() -> pg.localStatementTimeout(0, false)).isInstanceOf(IllegalArgumentException.class);
        assertThat(SqlCatalog.maxStatementTime("select 1", 1500)).isEqualTo("SET STATEMENT max_statement_time=1.500 FOR select 1");
        assertThat(SqlCatalog.of(SqlDialect.MARIADB, "t").lockWait(Duration.ofMillis(2001), true))
                .isEqualTo("SET @idempotency_lock_wait_timeout = @@session.innodb_lock_wait_timeout,"
                        + " SESSION innodb_lock_wait_timeout = 3");
        assertThat(SqlCatalog.of(SqlDialect.MARIADB, "t").lockWait(Duration.ZERO, false))
                .isEqualTo("SET SESSION innodb_lock_wait_timeout = 0");
        assertThat(SqlCatalog.of(SqlDialect.MYSQL, "t").lockWait(Duration.ZERO, false))
                .as("MySQL's least lock wait is a second").isEqualTo("SET SESSION innodb_lock_wait_timeout = 1");
        assertThat(SqlCatalog.of(SqlDialect.H2, "t").lockWait(Duration.ofMillis(1500), false))
                .isEqualTo("SET LOCK_TIMEOUT 1500");
    }

    @Test
    void tableNamesAreChecked() {
        assertThatThrownBy(() -> SqlCatalog.of(SqlDialect.H2, "a.b.c")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SqlCatalog.of(SqlDialect.H2, "x;drop")).isInstanceOf(IllegalArgumentException.class);
        assertThat(SqlCatalog.of(SqlDialect.MARIADB, "db.t").table().quoted(SqlDialect.MARIADB)).isEqualTo("`db`.`t`");
    }
}
