package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleStorage;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples' contract against the Quarkus service on the local PostgreSQL, in a throwaway
 * schema: the orders and the records (JdbcStore) in the Agroal data source, the atomic mode's
 * writes joining the reservation's JTA transaction.
 */
class QuarkusExampleOnPostgresTest extends QuarkusExampleContract {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.postgres(ExampleStorage.UrlForm.POSTGRESQL, "JdbcStore", Map.of());

    QuarkusExampleOnPostgresTest() {
        super(STORAGE);
    }
}
