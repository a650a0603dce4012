package dev.idempotency.examples;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.redis.RedisStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * {@code REDIS_URL} as a {@link RedisStore}: {@code redis://host:port} / {@code rediss://...}
 * (Lettuce's URI syntax: {@code redis://:password@host:port/database}) is a standalone server,
 * {@code redis-cluster://host1:port1,host2:port2} a cluster's seed nodes (the other nodes are
 * discovered). The store checks the server is reachable before the service listens.
 */
final class RedisStores {

    private static final String CLUSTER = "redis-cluster://";

    private RedisStores() {
    }

    /**
     * Opens the store.
     *
     * @param nonBlocking whether the engine gets {@link RedisStore#async()} (Vert.x) instead of the blocking face
     * @param ordersIn    where the orders are, for the description
     * @throws IllegalStateException naming the URL (without a password) when Redis cannot be reached
     */
    static ExampleStore open(ExampleSettings settings, boolean nonBlocking, String ordersIn) {
        String url = settings.redisUrl().orElseThrow();
        RedisStore store;
        AutoCloseable client;
        String where;
        if (url.startsWith(CLUSTER)) {
            List<RedisURI> seeds = Arrays.stream(url.substring(CLUSTER.length()).split(","))
                    .map(String::trim).filter(s -> !s.isEmpty()).map(hostPort -> RedisURI.create("redis://" + hostPort))
                    .toList();
            if (seeds.isEmpty()) {
                throw new IllegalArgumentException("REDIS_URL names no seed node: " + url);
            }
            RedisClusterClient cluster = clusterClient(seeds);
            client = cluster::shutdown;
            store = RedisStore.builder(cluster).keyPrefix(settings.redisKeyPrefix()).build();
            where = "on the Redis Cluster seeded by " + url.substring(CLUSTER.length());
        } else {
            RedisClient standalone = RedisClient.create();
            client = standalone::shutdown;
            store = RedisStore.builder(standalone, RedisURI.create(url)).keyPrefix(settings.redisKeyPrefix()).build();
            where = "at " + PostgresUrl.withoutCredentials(url);
        }
        try {
            // Connects now, so a wrong URL stops the start instead of failing the first request.
            store.find(new RecordKey("startup-check", "GET", "/", "startup-check"), Instant.now());
        } catch (RuntimeException e) {
            store.close();
            close(client);
            throw new IllegalStateException("Could not reach Redis (REDIS_URL) " + where + ": " + e.getMessage(), e);
        }
        String description = "RedisStore (key prefix " + store.keyPrefix() + ") " + where + "; orders in " + ordersIn;
        RedisStore opened = store;
        AutoCloseable resources = () -> {
            opened.close();
            close(client);
        };
        return nonBlocking ? ExampleStore.async(store.async(), description, resources)
                : ExampleStore.blocking(store, description, resources);
    }

    /**
     * A cluster client that follows the topology, with the options idempotency-redis's README
     * recommends: adaptive refresh on every trigger (at most every 500 ms) and a periodic refresh
     * every second, so that a failover heals in seconds rather than at Lettuce's default pace.
     */
    static RedisClusterClient clusterClient(List<RedisURI> seeds) {
        RedisClusterClient client = RedisClusterClient.create(seeds);
        client.setOptions(ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .enablePeriodicRefresh(Duration.ofSeconds(1))
                        .build())
                .build());
        return client;
    }

    private static void close(AutoCloseable client) {
        try {
            client.close();
        } catch (Exception e) {
            // shutting down anyway
        }
    }
}
