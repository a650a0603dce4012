package dev.idempotency.examples;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A throwaway key prefix on the local Redis (127.0.0.1:6379, or {@code REDIS_URL} as in idempotency-redis's tests) for
 * one test class: {@link #count()} counts its keys, {@link #close()} deletes them.
 */
public final class RedisTestPrefix implements AutoCloseable {

    private final String url;
    private final String prefix = "example-test:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    public RedisTestPrefix() {
        String fromEnv = System.getenv("REDIS_URL");
        url = fromEnv == null || fromEnv.isBlank() ? "redis://127.0.0.1:6379" : fromEnv;
        client = RedisClient.create(url);
        connection = client.connect();
    }

    /** The {@code REDIS_URL} to give the service. */
    public String url() {
        return url;
    }

    /** The {@code REDIS_KEY_PREFIX} to give the service. */
    public String prefix() {
        return prefix;
    }

    /** How many keys start with the prefix now. */
    public long count() {
        return keys().size();
    }

    private List<String> keys() {
        RedisCommands<String, String> redis = connection.sync();
        List<String> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
            keys.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        return keys;
    }

    /** Deletes every key under the prefix and closes the connection. */
    @Override
    public void close() {
        try {
            List<String> keys = keys();
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            connection.close();
            client.shutdown();
        }
    }
}
