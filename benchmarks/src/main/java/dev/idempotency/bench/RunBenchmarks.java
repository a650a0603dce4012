package dev.idempotency.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./benchmarks/run}: the HTTP level against every example service, then the JMH
 * benchmarks; prints the table and writes {@code benchmarks/results/<date>.md}. The services run
 * in JVMs of their own; this JVM is the load generator.
 */
public final class RunBenchmarks {

    private RunBenchmarks() {
    }

    /** Other work on the machine moves every number; a shared machine is best measured when it is quiet. */
    private static void waitForLoad(double max) throws InterruptedException {
        if (max <= 0) {
            return;
        }
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(10).toNanos();
        double load = Machine.loadAverage();
        while (load >= max && System.nanoTime() < deadline) {
            Progress.say("load average %.2f, waiting for it to fall below %.2f", load, max);
            Thread.sleep(15_000);
            load = Machine.loadAverage();
        }
        if (load >= max) {
            Progress.say("load average still %.2f after 10 minutes; running anyway", load);
        }
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("idempotency.bench.root", ".")).toAbsolutePath().normalize();
        Options options;
        try {
            options = Options.parse(root, args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        waitForLoad(options.waitForLoad());
        ZonedDateTime started = Machine.now();
        long t0 = System.nanoTime();
        double loadBefore = Machine.loadAverage();
        Path work = root.resolve("benchmarks/target/bench-run");
        Files.createDirectories(work);

        HttpSuite.Result http = null;
        String databaseDescription = "no database";
        if (options.http()) {
            try (BenchDatabase database = new BenchDatabase(options.databaseUrl())) {
                databaseDescription = database.describe();
                Progress.say("%s; a schema per service, dropped at the end; service logs in %s", databaseDescription, work);
                HttpSuite suite = new HttpSuite(options, database, work);
                Thread dropOnInterrupt = new Thread(() -> {
                    // interrupted (Ctrl+C, kill): stop the services this run started, then drop their schemas
                    // and remove their Redis keys (only those under the run's own prefix)
                    ProcessHandle.current().descendants().forEach(ProcessHandle::destroy);
                    try {
                        database.dropSchemas();
                    } catch (Exception ignored) {
                        // best effort
                    }
                    suite.removeRedisKeys();
                });
                Runtime.getRuntime().addShutdownHook(dropOnInterrupt);
                http = suite.run();
                Runtime.getRuntime().removeShutdownHook(dropOnInterrupt);
            }
        }
        PurgeSuite.Result purge = null;
        if (options.purge()) {
            try (BenchDatabase database = new BenchDatabase(options.databaseUrl())) {
                purge = new PurgeSuite(database, options.purgeRows()).run();
            }
        }
        List<JmhSuite.Score> jmh = null;
        if (options.jmh()) {
            Progress.say("JMH: engine and canonicalizers (JMH's report: %s)", work.resolve("jmh.log"));
            jmh = JmhSuite.run(options, work.resolve("jmh.log"));
        }
        double loadAfter = Machine.loadAverage();
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;

        Report report = new Report(options, Machine.describe(root, databaseDescription), started, loadBefore, loadAfter,
                seconds, http, jmh, purge);
        String text = report.render();
        System.out.println();
        System.out.print(text);
        Files.createDirectories(options.resultsDir());
        Path file = options.resultsDir().resolve(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm",
                Locale.ROOT)) + ".md");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Progress.say("written to %s", root.relativize(file));
    }
}
