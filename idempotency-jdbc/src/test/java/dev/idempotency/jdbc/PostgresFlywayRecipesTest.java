package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;

class PostgresFlywayRecipesTest extends AbstractFlywayRecipesTest {

    @Override
    TestDatabase database() {
        return TestDatabase.postgres();
    }

    @Override
    String dialectFolder() {
        return "postgresql";
    }

    @Override
    Map<String, String> renumberedCopies() {
        Map<String, String> copies = new LinkedHashMap<>();
        copies.put("db/idempotency/postgresql/V1__idempotency_keys.sql", "V2__idempotency_keys.sql");
        copies.put("db/idempotency/postgresql/V3__idempotency_keys_fillfactor.sql", "V3__idempotency_keys_fillfactor.sql");
        copies.put("db/idempotency/postgresql/V4__idempotency_keys_caller.sql", "V4__idempotency_keys_caller.sql");
        return copies;
    }

    @Override
    void assertIdempotencyTableDetails() throws SQLException {
        assertThat(MigrationChecks.reloptions(pool, db.name + ".idempotency_keys")).isEqualTo("fillfactor=70");
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isTrue();
    }

    @Test
    void rowLevelSecurityAddedLaterNeedsOneOutOfOrderRun() throws SQLException {
        applicationFlyway(APP_LOCATION).migrate();
        idempotencyFlyway().migrate();   // V1, V3, V4
        String[] withRls = {"classpath:db/idempotency/postgresql", "classpath:db/idempotency/postgresql-rls"};

        assertThatThrownBy(() -> idempotencyFlyway(withRls, false).migrate()).isInstanceOf(FlywayException.class)
                .hasMessageContaining("Detected resolved migration not applied to database: 2");
        assertThat(idempotencyFlyway(withRls, true).migrate().migrationsExecuted).isEqualTo(1);

        assertThat(rowSecurity()).isTrue();
        assertThat(idempotencyFlyway(withRls, false).migrate().migrationsExecuted).isZero();
    }

    private Flyway idempotencyFlyway(String[] locations, boolean outOfOrder) {
        return Flyway.configure().dataSource(pool).schemas(db.name).table(IDEMPOTENCY_HISTORY)
                .locations(locations).baselineOnMigrate(true).baselineVersion("0").outOfOrder(outOfOrder).load();
    }

    private boolean rowSecurity() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT relrowsecurity AND relforcerowsecurity FROM pg_class "
                     + "WHERE oid = to_regclass('" + db.name + ".idempotency_keys')")) {
            assertThat(rs.next()).isTrue();
            return rs.getBoolean(1);
        }
    }
}
