package dev.idempotency.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler reporting {@code cpu.time.norm}: CPU time of the benchmark's JVM (all its
 * threads — the benchmark thread, and the garbage collection its allocations cause) per
 * operation. On a machine shared with other work, wall-clock scores move with whatever else runs
 * (a benchmark gets half a core while a build runs beside it); CPU time per operation barely
 * does, so ratios between benchmarks run minutes apart stay comparable.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long before;

    @Override
    public String getDescription() {
        return "CPU time of the JVM (all threads) per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                      IterationResult result) {
        long cpu = os.getProcessCpuTime() - before;
        long ops = result.getMetadata().getAllOps();
        return List.of(new ScalarResult("cpu.time.norm", ops == 0 ? Double.NaN : (double) cpu / ops, "ns/op",
                AggregationPolicy.AVG));
    }
}
