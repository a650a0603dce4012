package dev.idempotency.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler reporting {@code cpu.time.norm}: CPU time of the benchmark's worker threads per
 * operation. On a machine shared with other work, wall-clock scores move with whatever else runs
 * (a benchmark gets half a core while a build runs beside it); the CPU time the benchmark thread
 * itself spends per operation barely does, so ratios between benchmarks run minutes apart stay
 * comparable. Only JMH's worker threads count: the JIT compiler's threads, still busy in early
 * iterations on a crowded machine, would otherwise add their work to the benchmark's.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private Map<Long, Long> before = Map.of();

    @Override
    public String getDescription() {
        return "CPU time of JMH's worker threads per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = workerCpu();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                      IterationResult result) {
        long cpu = 0;
        for (Map.Entry<Long, Long> e : workerCpu().entrySet()) {
            cpu += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        long ops = result.getMetadata().getAllOps();
        return List.of(new ScalarResult("cpu.time.norm", ops == 0 || cpu <= 0 ? Double.NaN : (double) cpu / ops,
                "ns/op", AggregationPolicy.AVG));
    }

    private Map<Long, Long> workerCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains("jmh-worker")) {
                long time = threads.getThreadCpuTime(info.getThreadId());
                if (time >= 0) {
                    cpu.put(info.getThreadId(), time);
                }
            }
        }
        return cpu;
    }
}
