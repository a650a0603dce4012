package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code durability(1, 100ms)} costs and buys, on a master and one replica this class starts
 * ({@link LocalReplication}): the latency of {@code complete} with and without the WAIT, over
 * interleaved completions (printed as one {@code durability cost:} line), and that a completion the
 * WAIT acknowledged is on the replica as soon as {@code complete} returns.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RedisDurabilityCostTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration WAIT = Duration.ofMillis(100);
    private static final int WARM_UP = 200;
    private static final int COMPLETIONS = 2_000;

    private static LocalReplication servers;

    @BeforeAll
    static void startServers() throws Exception {
        assumeTrue(LocalCluster.toolsAvailable(), "redis-server is not on the PATH");
        servers = LocalReplication.start();
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.stop();
        }
    }

    /** One mode's completions: how long each complete took, and whether the replica had it right after. */
    private record Run(String name, long[] nanos, boolean[] onReplica) {
        Run(String name, int n) {
            this(name, new long[n], new boolean[n]);
        }

        double percentileMillis(double p) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
        }

        double maxMillis() {
            return Arrays.stream(nanos).max().orElseThrow() / 1e6;
        }

        long count(boolean replicaHadIt) {
            int n = 0;
            for (boolean b : onReplica) {
                n += b == replicaHadIt ? 1 : 0;
            }
            return n;
        }

        String figures() {
            return String.format("%s p50 %.3f ms, p99 %.3f ms, max %.3f ms, on the replica right after %d/%d",
                    name, percentileMillis(50), percentileMillis(99), maxMillis(), count(true), nanos.length);
        }
    }

    @Test
    void waitAcknowledgedCompletionsAreOnTheReplicaWhenCompleteReturnsAndWhatTheWaitCosts() {
        String prefix = "test-idem:durability-cost:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        RedisClient client = RedisClient.create();
        try (RedisStore plain = RedisStore.builder(client, servers.masterUri()).keyPrefix(prefix).build();
             RedisStore durable = RedisStore.builder(client, servers.masterUri()).keyPrefix(prefix)
                     .durability(1, WAIT).build();
             StatefulRedisConnection<String, String> replicaConnection = client.connect(servers.replicaUri())) {
            RedisCommands<String, String> replica = replicaConnection.sync();
            assertThat(replica.info("replication")).contains("role:slave", "master_link_status:up");

            Run off = new Run("off", COMPLETIONS);
            Run on = new Run("durability(1, " + WAIT.toMillis() + "ms)", COMPLETIONS);
            List<Integer> waitedOut = new ArrayList<>();
            List<Integer> missingAfterAcknowledgedWait = new ArrayList<>();
            for (int i = -WARM_UP; i < COMPLETIONS; i++) {
                // interleaved, so both modes see the same load of the machine
                complete(plain, replica, off, i);
                complete(durable, replica, on, i);
                if (i >= 0 && on.nanos()[i] < WAIT.toNanos()) {
                    // returned before the WAIT's timeout: the replica acknowledged it
                    if (!on.onReplica()[i]) {
                        missingAfterAcknowledgedWait.add(i);
                    }
                } else if (i >= 0) {
                    waitedOut.add(i);
                }
            }

            System.out.printf("durability cost: %d completions each, interleaved, master and one replica on loopback:"
                            + " %s; %s; WAIT timed out %d times%n",
                    COMPLETIONS, off.figures(), on.figures(), waitedOut.size());

            assertThat(missingAfterAcknowledgedWait)
                    .as("completions the WAIT acknowledged that the replica did not have when complete returned")
                    .isEmpty();
            assertThat(waitedOut.size()).as("WAITs that ran out with the replica up (of %d)", COMPLETIONS)
                    .isLessThan(COMPLETIONS / 4);
            assertThat(on.percentileMillis(50)).as("median with the WAIT, ms").isLessThan(WAIT.toMillis());
        } finally {
            client.shutdown();
        }
    }

    private static void complete(RedisStore store, RedisCommands<String, String> replica, Run run, int i) {
        RecordKey key = new RecordKey("t", "POST", "/orders", run.name().charAt(0) + "-" + i + "-" + UUID.randomUUID());
        Reservation reservation = ((ReserveResult.Acquired) store.reserve(key, "f".repeat(64), NOW,
                Duration.ofSeconds(30), Duration.ofHours(1))).reservation();
        StoredResponse response = new StoredResponse(201, "application/json", Map.of("Location", List.of("/orders/" + i)),
                ("{\"order\":" + i + "}").getBytes());
        long start = System.nanoTime();
        boolean completed = reservation.complete(response);
        long took = System.nanoTime() - start;
        assertThat(completed).as("complete of %s", key).isTrue();
        boolean onReplica = "C".equals(replica.hget(store.redisKey(key), "st"));
        if (i >= 0) {
            run.nanos()[i] = took;
            run.onReplica()[i] = onReplica;
        }
    }
}
