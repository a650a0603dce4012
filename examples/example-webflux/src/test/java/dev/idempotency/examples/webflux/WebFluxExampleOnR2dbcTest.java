package dev.idempotency.examples.webflux;

import dev.idempotency.examples.ExampleStorage;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on the local PostgreSQL with a {@code postgresql://} URL: the orders and the
 * records (R2dbcStore) over one R2DBC pool, the atomic mode included (the order and payment
 * written by {@link JoinedWrites} in the reservation's transaction).
 */
class WebFluxExampleOnR2dbcTest extends WebFluxExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.postgres(ExampleStorage.UrlForm.POSTGRESQL, "R2dbcStore",
            Map.of());

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }

    /** The atomic mode runs here. */
    @Override
    protected Optional<String> atomicModeRefusal() {
        return Optional.empty();
    }
}
