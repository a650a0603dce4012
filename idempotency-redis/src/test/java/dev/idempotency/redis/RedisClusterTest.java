package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.AsyncStoreContractTest;
import dev.idempotency.testkit.AsyncStoreRaceTest;
import dev.idempotency.testkit.StoreContractTest;
import dev.idempotency.testkit.StoreRaceTest;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store on a Redis Cluster of three masters and three replicas that this class starts from the
 * local {@code redis-server} (once, for every nested suite) and stops at the end: the contract and
 * the races for both faces, each instance on a {@link io.lettuce.core.cluster.RedisClusterClient}
 * of its own, and records spread over the masters.
 */
class RedisClusterTest {

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        assumeTrue(LocalCluster.toolsAvailable(), "redis-server and redis-cli are not on the PATH");
        cluster = LocalCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stop();
        }
    }

    @Test
    void recordsSpreadOverTheMasters() {
        int records = 48;
        try (TestRedis redis = TestRedis.cluster("spread", cluster.seeds())) {
            for (int i = 0; i < records; i++) {
                RecordKey key = new RecordKey("tenant", "POST", "/orders", "spread-" + UUID.randomUUID());
                assertThat(redis.first.reserve(key, "a".repeat(64), Instant.parse("2030-01-01T00:00:00Z"),
                        Duration.ofSeconds(30), Duration.ofHours(1))).isInstanceOf(ReserveResult.Acquired.class);
            }

            List<Integer> masters = cluster.masterPorts();
            assertThat(masters).hasSize(3);
            List<Long> perMaster = new ArrayList<>();
            for (int port : masters) {
                perMaster.add(cluster.onNode(port, node -> ScanIterator.scan(node.sync(),
                        ScanArgs.Builder.matches(redis.prefix + "*").limit(500)).stream().count()));
            }
            assertThat(perMaster.stream().mapToLong(Long::longValue).sum()).as("keys per master " + perMaster)
                    .isEqualTo(records);
            assertThat(perMaster.stream().filter(n -> n > 0).count()).as("masters holding records " + perMaster)
                    .isGreaterThan(1);
        }
    }

    /**
     * The case: the master of the key's slot stalls (CLIENT PAUSE, as a node does in a
     * failover), the reservation times out — 503, no handler — and then lands when the master goes
     * on. The engine releases it by the owner token it chose, so the retry, here on another
     * instance, runs at once instead of getting 409 for the lease.
     */
    @Test
    void aReservationThatTimedOutAndThenLandedDoesNotHoldTheKey() throws Exception {
        String prefix = "test-idem:cluster-lost:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        List<RedisClusterClient> clients = new ArrayList<>();
        List<IdempotencyEngine> engines = new ArrayList<>();
        try {
            Function<Duration, RedisStore> instance = timeout -> {
                RedisClusterClient client = RedisClusterClient.create(cluster.seeds());
                clients.add(client);
                return RedisStore.builder(client).keyPrefix(prefix).commandTimeout(timeout).build();
            };
            IdempotencyConfig config = IdempotencyConfig.builder().lease(Duration.ofSeconds(30))
                    .ttl(Duration.ofMinutes(1)).renewLease(false).build();
            RedisStore stalled = instance.apply(Duration.ofMillis(300));
            IdempotencyEngine first = new IdempotencyEngine(stalled, config);
            IdempotencyEngine other = new IdempotencyEngine(instance.apply(Duration.ofSeconds(2)), config);
            engines.add(first);
            engines.add(other);
            String key = "lost-" + UUID.randomUUID();
            int slot = SlotHash.getSlot(stalled.redisKey(new RecordKey("default", "POST", "/orders", key)));
            int master = cluster.masterPorts().stream().filter(port -> cluster.slotsOf(port).get(slot))
                    .findFirst().orElseThrow();
            // Connected (the cluster client's first call loads the topology, which may outlast 300 ms).
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
                first.checkStorage();
                other.checkStorage();
                return true;
            });

            Duration pause = Duration.ofMillis(1500);
            cluster.onNode(master, node -> node.sync().clientPause(pause.toMillis()));
            long paused = System.nanoTime();
            Decision lost = first.before(post(key));
            assertThat(lost).isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) lost).reply().status()).as("timed out: 503").isEqualTo(503);
            Thread.sleep(Math.max(0, pause.toMillis() - Duration.ofNanos(System.nanoTime() - paused).toMillis()));

            long resumed = System.nanoTime();
            Decision retry = await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> other.before(post(key)), decision -> decision instanceof Decision.Proceed);
            assertThat(Duration.ofNanos(System.nanoTime() - resumed)).as("far below the 30 s lease")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(((Decision.Proceed) retry).execution().finish(CapturedResponse.of(201,
                    Map.of("Content-Type", List.of("application/json")), "{}".getBytes(StandardCharsets.UTF_8))))
                    .isEmpty();
        } finally {
            engines.forEach(IdempotencyEngine::close);
            clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        }
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), "{\"item\":\"book\"}".getBytes(StandardCharsets.UTF_8));
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
        class Contract extends StoreContractTest {
        private TestRedis redis;

        @BeforeAll
        void connect() {
            redis = TestRedis.cluster("cluster-contract", cluster.seeds());
        }

        @AfterAll
        void deleteKeys() {
            redis.close();
        }

        @Override
        protected Store createStore() {
            return redis.first;
        }

        @Override
        protected Store secondInstance() {
            return redis.second;
        }


        /** Redis expires a record's key itself (PEXPIREAT); purgeExpired has nothing to do. */
        @Override
        protected boolean expiresRecordsItself() {
            return true;
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
        class AsyncContract extends AsyncStoreContractTest {
        private TestRedis redis;

        @BeforeAll
        void connect() {
            redis = TestRedis.cluster("cluster-async-contract", cluster.seeds());
        }

        @AfterAll
        void deleteKeys() {
            redis.close();
        }

        @Override
        protected AsyncStore createAsyncStore() {
            return redis.first.async();
        }

        @Override
        protected AsyncStore secondAsyncInstance() {
            return redis.second.async();
        }

        /** Redis expires a record's key itself (PEXPIREAT); purgeExpired has nothing to do. */
        @Override
        protected boolean expiresRecordsItself() {
            return true;
        }
    }

    @Nested
    class Race extends StoreRaceTest {
        private TestRedis redis;

        @Override
        protected Store firstInstance() {
            redis = TestRedis.cluster("cluster-race", cluster.seeds());
            return redis.first;
        }

        @Override
        protected Store secondInstance() {
            return redis.second;
        }

        @Override
        protected void closeInstances() {
            redis.close();
        }
    }

    @Nested
    class AsyncRace extends AsyncStoreRaceTest {
        private TestRedis redis;

        @Override
        protected AsyncStore firstAsyncInstance() {
            redis = TestRedis.cluster("cluster-async-race", cluster.seeds());
            return redis.first.async();
        }

        @Override
        protected AsyncStore secondAsyncInstance() {
            return redis.second.async();
        }

        @Override
        protected void closeInstances() {
            redis.close();
        }
    }
}
