package dev.idempotency.examples.vertx;

import dev.idempotency.examples.ExampleStorage;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples' contract against the Vert.x service on the local PostgreSQL with PgStore in the
 * atomic mode (every test that does not ask for another mode): a keyed request's order or payment
 * is written through the reservation's reactive connection and commits with the stored response.
 * {@code DATABASE_URL} in the {@code postgresql://user@host:port/db?currentSchema=...} form.
 */
class VertxExampleOnPgStoreAtomicTest extends VertxExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.postgres(ExampleStorage.UrlForm.POSTGRESQL, "PgStore",
            Map.of("IDEMPOTENCY_MODE", "atomic"));

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
