package dev.idempotency.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The in-process level: {@link EngineBenchmark} and {@link CanonicalizerBenchmark} through JMH's
 * API, one fork each, short iterations (four warm-up seconds, which the JIT needs on a busy
 * machine), with the GC profiler (allocations per operation) and
 * {@link CpuTimeProfiler} (CPU time per operation). JMH's own report goes to a log file.
 */
final class JmhSuite {

    /**
     * One benchmark's score.
     *
     * @param benchmark   {@code Class.method}
     * @param size        the {@code size} parameter, or 0
     * @param variant     the {@code canonicalizer} parameter, or {@code null}
     * @param score       in {@code unit}
     * @param error       the 99.9% confidence half-width, NaN with too few iterations
     * @param allocBytes  bytes allocated per operation, NaN when not measured
     * @param cpuNanos    CPU time of the benchmark's JVM per operation ({@link CpuTimeProfiler}), NaN when not measured
     */
    record Score(String benchmark, int size, String variant, double score, double error, String unit, double allocBytes,
                 double cpuNanos) {
    }

    private JmhSuite() {
    }

    static List<Score> run(Options options, Path log) throws RunnerException {
        TimeValue time = TimeValue.milliseconds(options.jmhIterationTime().toMillis());
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(EngineBenchmark.class.getName())
                .include(CanonicalizerBenchmark.class.getName())
                .warmupIterations(4)
                .warmupTime(time)
                .measurementIterations(4)
                .measurementTime(time)
                .forks(1)
                .addProfiler(GCProfiler.class)
                .addProfiler(CpuTimeProfiler.class)
                .output(log.toString())
                .build()).run();
        List<Score> scores = new ArrayList<>();
        for (RunResult r : results) {
            String full = r.getParams().getBenchmark();
            String name = full.substring(full.lastIndexOf('.', full.lastIndexOf('.') - 1) + 1);
            String size = r.getParams().getParam("size");
            Result<?> primary = r.getPrimaryResult();
            scores.add(new Score(name, size == null ? 0 : Integer.parseInt(size),
                    r.getParams().getParam("canonicalizer"), primary.getScore(),
                    primary.getScoreError(), primary.getScoreUnit(), secondary(r, "gc.alloc.rate.norm"),
                    secondary(r, "cpu.time.norm")));
        }
        return scores;
    }

    private static double secondary(RunResult r, String suffix) {
        return r.getSecondaryResults().entrySet().stream().filter(e -> e.getKey().endsWith(suffix))
                .mapToDouble(e -> e.getValue().getScore()).findFirst().orElse(Double.NaN);
    }
}
