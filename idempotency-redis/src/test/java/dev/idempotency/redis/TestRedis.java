package dev.idempotency.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * Two store instances over one Redis, each on a client of its own (two application servers), and
 * a key prefix of their own that {@link #close()} deletes. The standalone Redis is {@code REDIS_URL}
 * when set, otherwise the local server at {@code redis://127.0.0.1:6379}.
 */
final class TestRedis implements AutoCloseable {

    final String prefix;
    final RedisStore first;
    final RedisStore second;
    private final StatefulConnection<String, String> admin;
    private final RedisClusterCommands<String, String> adminCommands;
    private final List<Runnable> shutdowns = new ArrayList<>();

    private TestRedis(String label, Function<String, RedisStore> newInstance,
                      StatefulConnection<String, String> admin, RedisClusterCommands<String, String> adminCommands) {
        this.prefix = "test-idem:" + label + ":" + UUID.randomUUID().toString().substring(0, 8) + ":";
        this.first = newInstance.apply(prefix);
        this.second = newInstance.apply(prefix);
        this.admin = admin;
        this.adminCommands = adminCommands;
    }

    static RedisURI standaloneUri() {
        String url = System.getenv("REDIS_URL");
        return RedisURI.create(url == null || url.isBlank() ? "redis://127.0.0.1:6379" : url);
    }

    /** Two instances on the standalone Redis, each with its own {@link RedisClient}. */
    static TestRedis standalone(String label) {
        RedisURI uri = standaloneUri();
        List<RedisClient> clients = new ArrayList<>();
        RedisClient adminClient = RedisClient.create(uri);
        StatefulRedisConnection<String, String> admin = adminClient.connect();
        TestRedis redis = new TestRedis(label, prefix -> {
            RedisClient client = RedisClient.create();
            clients.add(client);
            return RedisStore.builder(client, uri).keyPrefix(prefix).build();
        }, admin, admin.sync());
        clients.forEach(client -> redis.shutdowns.add(client::shutdown));
        redis.shutdowns.add(adminClient::shutdown);
        return redis;
    }

    /** Two instances on a Redis Cluster, each with its own {@link RedisClusterClient}. */
    static TestRedis cluster(String label, List<RedisURI> seeds) {
        List<RedisClusterClient> clients = new ArrayList<>();
        RedisClusterClient adminClient = RedisClusterClient.create(seeds);
        StatefulRedisClusterConnection<String, String> admin = adminClient.connect();
        TestRedis redis = new TestRedis(label, prefix -> {
            RedisClusterClient client = RedisClusterClient.create(seeds);
            clients.add(client);
            return RedisStore.builder(client).keyPrefix(prefix).build();
        }, admin, admin.sync());
        clients.forEach(client -> redis.shutdowns.add(client::shutdown));
        redis.shutdowns.add(adminClient::shutdown);
        return redis;
    }

    /** The keys under this prefix (on a cluster: on every master). */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        ScanIterator.scan(adminCommands, ScanArgs.Builder.matches(prefix + "*").limit(500)).forEachRemaining(keys::add);
        return keys;
    }

    RedisClusterCommands<String, String> admin() {
        return adminCommands;
    }

    /** Deletes every key under the prefix, closes the stores and shuts the clients down. */
    @Override
    public void close() {
        try {
            List<String> keys = keys();
            for (String key : keys) {
                adminCommands.del(key);
            }
        } finally {
            first.close();
            second.close();
            admin.close();
            shutdowns.forEach(Runnable::run);
        }
    }
}
