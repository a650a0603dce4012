package dev.idempotency.examples.javalin;

import dev.idempotency.examples.ExampleStorage;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples' contract against the Javalin service with {@code REDIS_URL=redis-cluster://…}: the
 * records in a Redis Cluster (one node of its own holding every slot, started from the local
 * {@code redis-server}; skipped when there is none), through Lettuce's cluster client.
 */
class JavalinExampleOnRedisClusterTest extends JavalinExampleTest {

    @RegisterExtension
    static final ExampleStorage STORAGE = ExampleStorage.redisCluster();

    @Override
    protected ExampleStorage storage() {
        return STORAGE;
    }
}
