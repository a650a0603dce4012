package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.LinkedHashMap;
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
        Map<String, String> copies = new LinkedHashMap<>();
        copies.put("db/idempotency/mariadb/V1__idempotency_keys.sql", "V2__idempotency_keys.sql");
        copies.put("db/idempotency/mariadb/V4__idempotency_keys_caller.sql", "V3__idempotency_keys_caller.sql");
        return copies;
    }

    @Override
    void assertIdempotencyTableDetails() throws SQLException {
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isTrue();
    }
}
