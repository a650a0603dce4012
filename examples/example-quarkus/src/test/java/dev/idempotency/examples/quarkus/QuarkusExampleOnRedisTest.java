package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleStorage;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples' contract against the Quarkus service with its records in the local Redis
 * ({@code REDIS_URL}: RedisStore on Lettuce 6.8, which runs on Quarkus's Netty 4.1).
 */
class QuarkusExampleOnRedisTest extends QuarkusExampleContract {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.redis();

    QuarkusExampleOnRedisTest() {
        super(STORAGE);
    }
}
