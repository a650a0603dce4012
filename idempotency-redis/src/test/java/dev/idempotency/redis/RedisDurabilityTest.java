package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The opt-in WAIT after a completion, on the local Redis, which has no replicas: the completion
 * waits out the replica timeout, is stored anyway, and counts as completed.
 */
class RedisDurabilityTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration WAIT = Duration.ofMillis(300);

    private final RedisClient client = RedisClient.create();

    @AfterEach
    void shutDown() {
        client.shutdown();
    }

    @Test
    void aCompletionWaitsForTheReplicasUpToTheTimeoutAndIsStoredAnyway() {
        String prefix = "test-idem:durability:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        RecordKey key = new RecordKey("t", "POST", "/orders", "durable-" + UUID.randomUUID());
        try (RedisStore store = RedisStore.builder(client, TestRedis.standaloneUri()).keyPrefix(prefix)
                .durability(1, WAIT).build()) {
            assertThat(store.async().find(key, NOW).toCompletableFuture().join()).isEmpty();
            org.junit.jupiter.api.Assumptions.assumeTrue(replicasOfTheTestRedis() == 0, "the test Redis has no replica");
            Reservation reservation = ((ReserveResult.Acquired) store.reserve(key, "a".repeat(64), NOW,
                    Duration.ofSeconds(30), Duration.ofHours(1))).reservation();

            long start = System.nanoTime();
            assertThat(reservation.complete(new StoredResponse(200, null, Map.of(), new byte[] {9}))).isTrue();
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(took).as("WAIT 1 %s with no replica", WAIT).isGreaterThanOrEqualTo(WAIT.minusMillis(20));
            assertThat(store.find(key, NOW).orElseThrow().response().body()).containsExactly(9);
            assertThat(store.release(key, reservation.ownerToken()).join()).as("completed, so not releasable").isFalse();
            try (var admin = client.connect(TestRedis.standaloneUri())) {
                admin.sync().del(store.redisKey(key));
            }
        }
    }

    @Test
    void aReplicaTimeoutNotShorterThanTheCommandTimeoutAndAClusterAreRefused() {
        assertThatThrownBy(() -> RedisStore.builder(client, TestRedis.standaloneUri())
                .commandTimeout(Duration.ofSeconds(1)).durability(1, Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        RedisClusterClient cluster = RedisClusterClient.create("redis://127.0.0.1:1");
        try {
            assertThatThrownBy(() -> RedisStore.builder(cluster).durability(1, Duration.ofMillis(100)).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("standalone");
        } finally {
            cluster.shutdown();
        }
        assertThatThrownBy(() -> RedisStore.builder(client, TestRedis.standaloneUri()).durability(0, WAIT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private long replicasOfTheTestRedis() {
        try (var admin = client.connect(TestRedis.standaloneUri())) {
            String info = admin.sync().info("replication");
            return info.lines().filter(line -> line.startsWith("connected_slaves:"))
                    .mapToLong(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).strip())).sum();
        }
    }
}
