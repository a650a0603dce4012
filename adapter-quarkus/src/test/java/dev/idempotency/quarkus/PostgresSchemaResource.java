package dev.idempotency.quarkus;

import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** A throwaway PostgreSQL schema for the Quarkus application under test, dropped when it stops. */
public final class PostgresSchemaResource implements QuarkusTestResourceLifecycleManager {

    private PostgresTestSchema schema;

    @Override
    public Map<String, String> start() {
        schema = new PostgresTestSchema();
        return Map.of("quarkus.datasource.jdbc.url", schema.url(),
                "quarkus.datasource.username", PostgresTestSchema.USER,
                "quarkus.datasource.password", PostgresTestSchema.PASSWORD);
    }

    @Override
    public void stop() {
        if (schema != null) {
            schema.close();
        }
    }
}
