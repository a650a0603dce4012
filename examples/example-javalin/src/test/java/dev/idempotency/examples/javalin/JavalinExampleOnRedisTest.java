package dev.idempotency.examples.javalin;

import dev.idempotency.examples.ExampleStorage;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples' contract against the Javalin service with its records in the local Redis (RedisStore). */
class JavalinExampleOnRedisTest extends JavalinExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.redis();

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
