package dev.idempotency.examples.javalin;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.examples.OneNodeRedisCluster;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The examples' contract against the Javalin service with {@code REDIS_URL=redis-cluster://…}: the
 * records in a Redis Cluster (one node of its own holding every slot, started from the local
 * {@code redis-server}; skipped when there is none), through Lettuce's cluster client.
 */
class JavalinExampleOnRedisClusterTest extends JavalinExampleTest {

    private static OneNodeRedisCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        assumeTrue(OneNodeRedisCluster.available(), "redis-server is not installed");
        cluster = OneNodeRedisCluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("REDIS_URL", cluster.url(), "REDIS_KEY_PREFIX", "example-cluster:");
    }

    @Override
    protected String expectedStore() {
        return "RedisStore";
    }

    @Override
    protected OptionalLong storedRecords() {
        return OptionalLong.of(cluster.keys());
    }
}
