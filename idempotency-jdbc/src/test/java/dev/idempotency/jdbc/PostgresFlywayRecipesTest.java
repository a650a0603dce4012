package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

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
        return copies;
    }

    @Override
    void assertIdempotencyTableDetails() throws SQLException {
        assertThat(MigrationChecks.reloptions(pool, db.name + ".idempotency_keys")).isEqualTo("fillfactor=70");
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isTrue();
    }
}
