package dev.idempotency.examples.vertx;

import dev.idempotency.examples.ExampleStorage;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples' contract against the Vert.x service with its records in the local Redis (RedisStore's non-blocking face). */
class VertxExampleOnRedisTest extends VertxExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.redis();

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
