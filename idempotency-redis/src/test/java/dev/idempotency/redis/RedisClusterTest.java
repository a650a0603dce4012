package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
