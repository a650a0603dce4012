package dev.idempotency.bench;

import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import java.util.List;

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
 */
record HttpRow(String framework, HttpConfig config, LoadResult capacity, List<Double> roundThroughputs,
               LoadResult latency, Counters.Snapshot jdbc, HttpSuite.Cpu cpu, String unavailable) {

    static HttpRow unavailable(String framework, HttpConfig config, String why) {
        return new HttpRow(framework, config, null, List.of(), null, null, null, why);
    }

    boolean ran() {
        return unavailable == null;
    }

    /** A JDBC count per answered request of the closed-loop phases. */
    double perRequest(long count) {
        return (double) count / (capacity.succeeded() + capacity.errors());
    }
}
