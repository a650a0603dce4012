package dev.idempotency.quarkus;

import dev.idempotency.testkit.IdempotentMethodChecks;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;

/**
 * {@link IdempotentMethod} on a CDI bean of the module's test application ({@link Payments}), in the
 * reserve mode over the JDBC store on its PostgreSQL schema ({@code idempotency.in-flight-wait=PT0.5S}):
 * test-kit's suite.
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class QuarkusIdempotentMethodTest extends IdempotentMethodChecks {

    @Inject
    Payments payments;

    @Override
    protected IdempotentMethodChecks.Payments payments() {
        return payments;
    }
}
