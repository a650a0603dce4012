package dev.idempotency.bench;

import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import java.util.List;
import java.util.Map;

/**
 * One framework × configuration: the closed-loop phases (throughput, JDBC counts), the open-loop
 * phases (latency at a fixed rate), or why there are none.
 *
 * @param capacity          the closed-loop rounds merged
 * @param roundThroughputs  each closed-loop round's requests per second, in round order
 * @param latency           the open-loop rounds merged
 * @param jdbc              JDBC counts over the closed-loop rounds
 * @param cpu               CPU time over the closed-loop rounds
 * @param unavailable       why the configuration did not run, or {@code null} when it did
 * @param store             where the idempotency records are kept
 * @param jdbcCounted       whether the service's JDBC connections went through the counting driver
 *                          (not for {@code pg}: the example takes PgStore only for a plain PostgreSQL URL)
 * @param redisCalls        Redis commands the server executed over the closed-loop rounds, per command
 *                          ({@code INFO commandstats}, the runner's own {@code INFO} excluded); empty unless {@code redis}
 * @param pgSegments        TCP data segments the service sent to PostgreSQL over the closed-loop rounds
 *                          ({@link SocketMeter}), -1 when not measured
 * @param redisSegments     the same to Redis, -1 when not measured
 * @param group             the group of services it was measured in ({@link HttpCase#group()}), empty for the main one
 */
record HttpRow(String framework, HttpConfig config, LoadResult capacity, List<Double> roundThroughputs,
               LoadResult latency, Counters.Snapshot jdbc, TurnMeter.Cpu cpu, String unavailable, BenchStore store,
               boolean jdbcCounted, Map<String, Long> redisCalls, long pgSegments, long redisSegments,
               String group) {

    static HttpRow unavailable(String framework, HttpCase c, String why) {
        return new HttpRow(framework, c.config(), null, List.of(), null, null, null, why, c.store(), false, Map.of(), -1, -1,
                c.group());
    }

    HttpCase httpCase() {
        return new HttpCase(config, store, group);
    }

    /** Redis commands per answered request of the closed-loop phases. */
    double redisCommandsPerRequest() {
        return perRequest(redisCalls.values().stream().mapToLong(Long::longValue).sum());
    }

    boolean ran() {
        return unavailable == null;
    }

    /** A JDBC count per answered request of the closed-loop phases. */
    double perRequest(long count) {
        return (double) count / (capacity.succeeded() + capacity.errors());
    }
}
