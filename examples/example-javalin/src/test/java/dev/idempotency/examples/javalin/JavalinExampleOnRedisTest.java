package dev.idempotency.examples.javalin;

import dev.idempotency.examples.RedisTestPrefix;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;

/** The examples' contract against the Javalin service with its records in the local Redis (RedisStore). */
class JavalinExampleOnRedisTest extends JavalinExampleTest {

    private static final RedisTestPrefix REDIS = new RedisTestPrefix();

    @AfterAll
    static void cleanUp() {
        REDIS.close();
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("REDIS_URL", REDIS.url(), "REDIS_KEY_PREFIX", REDIS.prefix());
    }

    @Override
    protected String expectedStore() {
        return "RedisStore";
    }

    @Override
    protected OptionalLong storedRecords() {
        return OptionalLong.of(REDIS.count());
    }
}
