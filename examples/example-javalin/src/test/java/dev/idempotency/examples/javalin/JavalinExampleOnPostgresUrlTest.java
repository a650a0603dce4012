package dev.idempotency.examples.javalin;

import dev.idempotency.examples.ExampleStorage;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples' contract against the Javalin service on the local PostgreSQL, in a throwaway
 * schema, with {@code DATABASE_URL} in the {@code postgresql://user@host:port/db?currentSchema=...}
 * form, which the JDBC examples convert to the JDBC URL (the store stays JdbcStore).
 */
class JavalinExampleOnPostgresUrlTest extends JavalinExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.postgres(ExampleStorage.UrlForm.POSTGRESQL, "JdbcStore", Map.of());

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
