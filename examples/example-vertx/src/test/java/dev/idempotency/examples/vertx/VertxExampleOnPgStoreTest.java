package dev.idempotency.examples.vertx;

import dev.idempotency.examples.ExampleStorage;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples' contract against the Vert.x service on the local PostgreSQL, in a throwaway
 * schema: PgStore on the reactive client for the records, in the reserve mode (the tests that ask
 * for another mode get it). The {@code DATABASE_URL} is the JDBC form, as the reliability tests
 * pass it; {@link VertxExampleOnPgStoreAtomicTest} uses the {@code postgresql://} form.
 */
class VertxExampleOnPgStoreTest extends VertxExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.postgres(ExampleStorage.UrlForm.JDBC, "PgStore", Map.of());

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
