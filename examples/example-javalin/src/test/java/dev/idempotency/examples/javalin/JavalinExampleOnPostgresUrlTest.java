package dev.idempotency.examples.javalin;

import dev.idempotency.examples.PostgresTestSchema;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;

/**
 * The examples' contract against the Javalin service on the local PostgreSQL, in a throwaway
 * schema, with {@code DATABASE_URL} in the {@code postgresql://user@host:port/db?currentSchema=...}
 * form, which the JDBC examples convert to the JDBC URL (the store stays JdbcStore).
 */
class JavalinExampleOnPostgresUrlTest extends JavalinExampleTest {

    private static final PostgresTestSchema SCHEMA = new PostgresTestSchema();

    @AfterAll
    static void dropSchema() {
        SCHEMA.close();
    }

    @Override
    protected Map<String, String> environment() {
        SCHEMA.reset();
        return Map.of("DATABASE_URL", SCHEMA.postgresqlUrl());
    }

    @Override
    protected OptionalLong storedRecords() throws Exception {
        return OptionalLong.of(SCHEMA.queryLong("SELECT count(*) FROM idempotency_keys"));
    }
}
