package dev.idempotency.examples.micronaut;

import dev.idempotency.examples.ExampleStorage;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples' contract against the Micronaut service with its records in the local Redis (RedisStore). */
class MicronautExampleOnRedisTest extends MicronautExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.redis();

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
