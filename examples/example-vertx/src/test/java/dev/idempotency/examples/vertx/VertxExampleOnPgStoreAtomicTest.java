package dev.idempotency.examples.vertx;

import dev.idempotency.examples.PostgresTestSchema;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;

/**
 * The examples' contract against the Vert.x service on the local PostgreSQL with PgStore in the
 * atomic mode (every test that does not ask for another mode): a keyed request's order or payment
 * is written through the reservation's reactive connection and commits with the stored response.
 * {@code DATABASE_URL} in the {@code postgresql://user@host:port/db?currentSchema=...} form.
 */
class VertxExampleOnPgStoreAtomicTest extends VertxExampleTest {

    private static final PostgresTestSchema SCHEMA = new PostgresTestSchema();

    @AfterAll
    static void dropSchema() {
        SCHEMA.close();
    }

    @Override
    protected Map<String, String> environment() {
        SCHEMA.reset();
        return Map.of("DATABASE_URL", SCHEMA.postgresqlUrl(), "IDEMPOTENCY_MODE", "atomic");
    }

    @Override
    protected String expectedStore() {
        return "PgStore";
    }

    @Override
    protected OptionalLong storedRecords() throws Exception {
        return OptionalLong.of(SCHEMA.queryLong("SELECT count(*) FROM idempotency_keys"));
    }
}
