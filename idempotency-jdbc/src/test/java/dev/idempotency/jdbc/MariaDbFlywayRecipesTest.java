package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.Map;

class MariaDbFlywayRecipesTest extends AbstractFlywayRecipesTest {

    @Override
    TestDatabase database() {
        return TestDatabase.mariadb();
    }

    @Override
    String dialectFolder() {
        return "mariadb";
    }

    @Override
    Map<String, String> renumberedCopies() {
        return Map.of("db/idempotency/mariadb/V1__idempotency_keys.sql", "V2__idempotency_keys.sql");
    }

    @Override
    void assertIdempotencyTableDetails() throws SQLException {
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isTrue();
    }
}
