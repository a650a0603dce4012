package dev.idempotency.examples.webflux;

import dev.idempotency.examples.ExampleStorage;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on the local PostgreSQL with a {@code postgresql://} URL: the orders and the
 * records (R2dbcStore) over one R2DBC pool.
 */
class WebFluxExampleOnR2dbcTest extends WebFluxExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.postgres(ExampleStorage.UrlForm.POSTGRESQL, "R2dbcStore",
            Map.of());

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
