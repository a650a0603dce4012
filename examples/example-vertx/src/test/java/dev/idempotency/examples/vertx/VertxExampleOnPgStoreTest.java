package dev.idempotency.examples.vertx;

import dev.idempotency.examples.PostgresTestSchema;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;

/**
 * The examples' contract against the Vert.x service on the local PostgreSQL, in a throwaway
 * schema: PgStore on the reactive client for the records, in the reserve mode (the tests that ask
 * for another mode get it). The {@code DATABASE_URL} is the JDBC form, as the reliability tests
 * pass it; {@link VertxExampleOnPgStoreAtomicTest} uses the {@code postgresql://} form.
 */
class VertxExampleOnPgStoreTest extends VertxExampleTest {

    static final PostgresTestSchema SCHEMA = new PostgresTestSchema();

    @AfterAll
    static void dropSchema() {
        SCHEMA.close();
    }

    /** Each start begins with empty tables: the contract counts orders from zero. */
    @Override
    protected Map<String, String> environment() {
        SCHEMA.reset();
        return Map.of("DATABASE_URL", SCHEMA.jdbcUrl());
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
