package dev.idempotency.examples.spring;

import dev.idempotency.examples.ExampleStorage;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples' contract against the Spring Boot service with its records in the local Redis (RedisStore). */
class SpringExampleOnRedisTest extends SpringExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.redis();

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
