package dev.idempotency.bench;

import dev.idempotency.bench.report.Table;
import java.time.format.DateTimeFormatter;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The results as Markdown: the run's conditions and command line, the HTTP section ({@link HttpReport}), the JMH tables, the targets. */
final class Report {

    /** The measured figure, the bound and whether it holds. */
    record Target(String what, String figure, boolean met) {
    }

    private final Options options;
    private final Machine machine;
    private final ZonedDateTime started;
    private final double loadBefore;
    private final double loadAfter;
    private final long seconds;
    private final HttpSuite.Result http;
    private final List<JmhSuite.Score> jmh;
    private final PurgeSuite.Result purge;
    private final List<Target> targets = new ArrayList<>();

    Report(Options options, Machine machine, ZonedDateTime started, double loadBefore, double loadAfter, long seconds,
           HttpSuite.Result http, List<JmhSuite.Score> jmh, PurgeSuite.Result purge) {
        this.options = options;
        this.machine = machine;
        this.started = started;
        this.loadBefore = loadBefore;
        this.loadAfter = loadAfter;
        this.seconds = seconds;
        this.http = http;
        this.jmh = jmh;
        this.purge = purge;
    }

    String render() {
        targets.clear();
        StringBuilder out = new StringBuilder();
        out.append("# Cost of idempotency — ").append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append("\n\n");
        out.append(String.format(Locale.ROOT, """
                - machine: %d cores (%s), %s, %s
                - load average (1 min): %.2f before the run, %.2f at its end (the end includes the run's own processes)
                - commit: %s; the run took %d s
                """, machine.cores(), machine.cpu(), machine.jdk(), machine.database(), loadBefore, loadAfter,
                machine.commit(), seconds));
        out.append(CommandLine.header("./benchmarks/run", options.args(), options.resolvedArgs()));
        if (http != null && http.redis() != null) {
            out.append("- Redis (the `redis` rows): ").append(http.redis()).append('\n');
        }
        if (http != null) {
            out.append('\n').append(new HttpReport(options, http, targets).render());
        }
        if (purge != null) {
            out.append('\n').append(PurgeSuite.section(purge));
        }
        if (jmh != null) {
            out.append('\n').append(engineSection()).append('\n').append(canonicalizerSection());
        }
        out.append('\n').append(targetSection());
        return out.toString();
    }

    private String engineSection() {
        StringBuilder out = new StringBuilder("## Engine overhead (JMH, in-memory store, 1 KB JSON body)\n\n");
        out.append("`EngineBenchmark`: `newKey` = fingerprint + reserve + complete with a 200-byte response; "
                + "`replay` = fingerprint + reserve finds the completed record + replay built. One thread. "
                + "With the default canonicalizer (`sortedJson`) and `rawBytes` (no parsing: the engine's cost "
                + "besides canonicalization). "
                + "**CPU** is the benchmark thread's CPU time per request (`CpuTimeProfiler`), which other work "
                + "on the machine moves far less than the wall clock; **wall** is JMH's own score.\n\n");
        Table table = new Table("benchmark", "canonicalizer", ">µs CPU/request", ">µs wall/request", ">± (99.9%)",
                ">allocated B/request");
        for (JmhSuite.Score s : jmh) {
            if (s.benchmark().startsWith("EngineBenchmark.")) {
                table.row(s.benchmark(), s.variant() == null ? "" : s.variant(), Table.number(s.cpuNanos() / 1000, 2),
                        Table.number(s.score(), 2), Table.number(s.error(), 2), Table.number(s.allocBytes(), 0));
                if (s.benchmark().endsWith(".newKey") && "sortedJson".equals(s.variant())) {
                    targets.add(new Target("engine overhead ≤ 5 µs per new-key request (1 KB), CPU time",
                            Table.number(s.cpuNanos() / 1000, 2) + " µs", s.cpuNanos() / 1000 <= 5.0));
                }
            }
        }
        return out.append(table.render()).toString();
    }

    private static final String[][] CANONICALIZERS = {
        {"CanonicalizerBenchmark.jacksonTreeParse", "Jackson readTree (yardstick)"},
        {"CanonicalizerBenchmark.sortedJsonAndSha256", "sortedJson + SHA-256"},
        {"CanonicalizerBenchmark.jcsAndSha256", "jcs + SHA-256"},
    };

    private String canonicalizerSection() {
        StringBuilder out = new StringBuilder("## Canonicalize + SHA-256 (JMH)\n\n");
        out.append("`CanonicalizerBenchmark`, one thread, the bodies of `Bodies.json` (an order with line items). "
                + "**MB/s** = body bytes per second of the benchmark thread's CPU time (MB = 10^6 bytes; "
                + "`CpuTimeProfiler`), and per second of wall-clock time (JMH's score). The yardstick is Jackson's plain `readTree` of the "
                + "same bytes: a canonicalizer has to parse at least once.\n\n");
        Table table = new Table(">body", "", ">MB/s (CPU)", ">× Jackson", ">MB/s (wall)", ">B allocated per body byte");
        for (int size : new int[] {1024, 65536, 1048576}) {
            Optional<JmhSuite.Score> jackson = score(CANONICALIZERS[0][0], size);
            if (jackson.isEmpty()) {
                continue;
            }
            double base = mbPerCpuSecond(jackson.get());
            for (String[] variant : CANONICALIZERS) {
                Optional<JmhSuite.Score> score = score(variant[0], size);
                if (score.isEmpty()) {
                    continue;
                }
                JmhSuite.Score s = score.get();
                double ratio = mbPerCpuSecond(s) / base;
                table.row(sizeLabel(size), variant[1], Table.number(mbPerCpuSecond(s), 0), Table.ratio(ratio),
                        Table.number(s.score() * bodyLength(size) / 1e6, 0), Table.number(s.allocBytes() / size, 1));
                if (variant[0].endsWith("sortedJsonAndSha256") || variant[0].endsWith("jcsAndSha256")) {
                    targets.add(new Target(variant[1] + " ≥ 0.5× Jackson tree parse, " + sizeLabel(size)
                            + " (CPU time)", Table.ratio(ratio), ratio >= 0.5));
                }
            }
        }
        return out.append(table.render()).toString();
    }

    private String targetSection() {
        Table table = new Table("target", ">measured", "met");
        targets.forEach(t -> table.row(t.what(), t.figure(), t.met() ? "yes" : "**no**"));
        return "## Targets\n\n" + table.render();
    }

    List<Target> targets() {
        return targets;
    }

    private Optional<JmhSuite.Score> score(String benchmark, int size) {
        return jmh.stream().filter(s -> s.benchmark().equals(benchmark) && s.size() == size).findFirst();
    }

    /** Body bytes per CPU-second, in MB; the body's actual length is within a few bytes of its nominal size. */
    private static double mbPerCpuSecond(JmhSuite.Score s) {
        return bodyLength(s.size()) / s.cpuNanos() * 1e9 / 1e6;
    }

    private static int bodyLength(int size) {
        return Bodies.json(size).length;
    }

    private static String sizeLabel(int size) {
        return size >= 1 << 20 ? (size >> 20) + " MB" : size >= 1024 ? (size >> 10) + " KB" : size + " B";
    }
}
