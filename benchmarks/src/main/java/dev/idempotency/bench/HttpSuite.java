package dev.idempotency.bench;

import dev.idempotency.bench.http.ExampleServer;
import dev.idempotency.bench.http.HttpLoad;
import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import dev.idempotency.bench.jdbc.CountingDriver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The HTTP level. Per framework, one service JVM per mode ({@code off}, {@code optimistic},
 * {@code reserve} — which also serves the replays — and {@code atomic}), each on empty tables in
 * a schema of its own, all started and warmed up before anything is measured. Then the
 * configurations take turns: {@link Options#rounds()} closed-loop rounds (capacity and JDBC
 * counts), then as many open-loop rounds at one rate per framework (latency at equal offered
 * load), the order rotated every round. Taking turns spreads whatever else the machine is doing
 * over all configurations alike, which is what keeps the ratios to {@code off} meaningful on a
 * shared machine; only the service being measured is busy, the others sit idle.
 */
final class HttpSuite {

    /** The example's order, as in its README; every configuration sends the same bytes. */
    static final byte[] BODY = "{\"item\":\"book\",\"quantity\":1}".getBytes(StandardCharsets.UTF_8);

    private final Options options;
    private final BenchDatabase database;
    private final Path workDir;
    private final String runId = Long.toString(System.currentTimeMillis(), 36);

    HttpSuite(Options options, BenchDatabase database, Path workDir) {
        this.options = options;
        this.database = database;
        this.workDir = workDir;
    }

    /** The rows of every framework, and each framework's open-loop rate. */
    record Result(List<HttpRow> rows, Map<String, Double> openLoopRates) {
    }

    /** A running service, its JDBC counters and the name its database connections carry. */
    private record Service(ExampleServer server, Counters counters, String applicationName) {
    }

    /**
     * CPU time spent during a phase, in nanoseconds; {@code serviceJit} is the part of
     * {@code service} that the service's JIT compiler threads spent.
     */
    record Cpu(long service, long database, long loadGenerator, long serviceJit) {
        static final Cpu ZERO = new Cpu(0, 0, 0, 0);

        Cpu plus(Cpu o) {
            return new Cpu(service + o.service, database + o.database, loadGenerator + o.loadGenerator,
                    serviceJit + o.serviceJit);
        }

        Cpu minus(Cpu o) {
            return new Cpu(service - o.service, database - o.database, loadGenerator - o.loadGenerator,
                    serviceJit - o.serviceJit);
        }
    }

    Result run() throws SQLException, IOException {
        List<HttpRow> rows = new ArrayList<>();
        Map<String, Double> rates = new LinkedHashMap<>();
        for (String framework : options.frameworks()) {
            try {
                rows.addAll(runFramework(framework, rates));
            } finally {
                database.dropSchemas();
            }
        }
        return new Result(rows, rates);
    }

    /** The service a configuration is measured on: replays go to the reserve-mode service. */
    private static HttpConfig serviceOf(HttpConfig config) {
        return config == HttpConfig.REPLAY ? HttpConfig.RESERVE : config;
    }

    private List<HttpRow> runFramework(String framework, Map<String, Double> rates) throws SQLException, IOException {
        Progress.say("HTTP %s: starting the services (%s)", framework, options.configs().stream()
                .map(HttpSuite::serviceOf).distinct().map(HttpConfig::label).toList());
        Map<HttpConfig, String> unavailable = new EnumMap<>(HttpConfig.class);
        Map<HttpConfig, Service> services = startServices(framework, unavailable);
        try {
            List<HttpConfig> active = new ArrayList<>();
            for (HttpConfig config : options.configs()) {
                if (services.containsKey(serviceOf(config))) {
                    active.add(config);
                } else {
                    unavailable.putIfAbsent(config, unavailable.get(serviceOf(config)));
                }
            }
            String replayKey = runId + "-" + framework + "-replay";
            warmUp(framework, services, active, replayKey);

            Map<HttpConfig, List<LoadResult>> capacity = new EnumMap<>(HttpConfig.class);
            Map<HttpConfig, Counters.Snapshot> jdbc = new EnumMap<>(HttpConfig.class);
            Map<HttpConfig, Cpu> cpu = new EnumMap<>(HttpConfig.class);
            int perRound = Math.max(1, options.requests() / options.rounds());
            for (int round = 0; round < options.rounds(); round++) {
                for (HttpConfig config : rotated(active, round)) {
                    Service service = services.get(serviceOf(config));
                    List<Long> backends = database.backendPids(service.applicationName());
                    Counters.Snapshot before = service.counters().snapshot();
                    Cpu cpuBefore = cpu(service, backends);
                    LoadResult result = load(service).closedLoop(perRound,
                            keys(framework, config, "c" + round, replayKey), options.phaseTimeLimit());
                    Cpu cpuAfter = cpu(service, backends);
                    jdbc.merge(config, service.counters().snapshot().minus(before), Counters.Snapshot::plus);
                    cpu.merge(config, cpuAfter.minus(cpuBefore), Cpu::plus);
                    capacity.computeIfAbsent(config, c -> new ArrayList<>()).add(result);
                }
                Progress.say("  capacity round %d/%d: %s", round + 1, options.rounds(), summary(capacity, round));
            }
            Progress.say("  service CPU per request, of which the JIT compiler's threads: %s", jitSummary(capacity, cpu));
            Map<HttpConfig, List<LoadResult>> latency = new EnumMap<>(HttpConfig.class);
            if (!active.isEmpty()) {
                // a rate every configuration sustains, so latency shows service time rather than an overload
                double slowest = capacity.values().stream().mapToDouble(r -> LoadResult.merge(r).throughput())
                        .min().orElseThrow();
                double rate = Math.max(1, Math.round(slowest * options.openLoopFraction()));
                rates.put(framework, rate);
                int perLatencyRound = Math.max(1, options.openLoopRequests() / options.rounds());
                for (int round = 0; round < options.rounds(); round++) {
                    for (HttpConfig config : rotated(active, round)) {
                        LoadResult result = load(services.get(serviceOf(config))).openLoop(perLatencyRound,
                                keys(framework, config, "o" + round, replayKey), rate, options.phaseTimeLimit());
                        latency.computeIfAbsent(config, c -> new ArrayList<>()).add(result);
                    }
                }
                Progress.say("  latency at %.0f req/s: %s", rate, latencySummary(latency));
            }
            List<HttpRow> rows = new ArrayList<>();
            for (HttpConfig config : options.configs()) {
                if (!active.contains(config)) {
                    rows.add(HttpRow.unavailable(framework, config, unavailable.get(config)));
                    continue;
                }
                List<Double> rounds = capacity.get(config).stream().map(LoadResult::throughput).toList();
                rows.add(new HttpRow(framework, config, LoadResult.merge(capacity.get(config)), rounds,
                        LoadResult.merge(latency.get(config)), jdbc.get(config), cpu.get(config), null));
            }
            return rows;
        } finally {
            services.values().parallelStream().forEach(s -> s.server().close());
        }
    }

    /** Starts one service per mode, side by side; a mode whose service does not start is recorded in {@code unavailable}. */
    private Map<HttpConfig, Service> startServices(String framework, Map<HttpConfig, String> unavailable)
            throws SQLException, IOException {
        Map<HttpConfig, CompletableFuture<Service>> starting = new EnumMap<>(HttpConfig.class);
        for (HttpConfig mode : options.configs().stream().map(HttpSuite::serviceOf).distinct().toList()) {
            String name = framework + "-" + mode.label();
            String schema = database.createSchema(("bench_" + runId + "_" + name).replace('-', '_'));
            Path countersFile = workDir.resolve(name + ".counters");
            Files.deleteIfExists(countersFile);
            Counters counters = Counters.mapped(countersFile);
            String applicationName = "bench-" + runId + "-" + name;
            Map<String, String> env = new HashMap<>(mode.env());
            env.put("PORT", "0");
            env.put("DATABASE_URL", database.serviceUrl(schema, applicationName));
            List<String> jvm = new ArrayList<>(options.serverJvmArgs());
            jvm.add("-D" + CountingDriver.COUNTERS_PROPERTY + "=" + countersFile);
            if (options.jfr()) {
                jvm.add("-XX:StartFlightRecording=settings=profile," + System.getenv().getOrDefault("BENCH_JFR_EVENTS", "")
                        + "filename=" + workDir.resolve(name + ".jfr"));
            }
            Path log = workDir.resolve(name + ".log");
            starting.put(mode, CompletableFuture.supplyAsync(() -> new Service(
                    ExampleServer.start(options.root(), framework, env, jvm, log, Duration.ofSeconds(90)), counters,
                    applicationName)));
        }
        Map<HttpConfig, Service> services = new EnumMap<>(HttpConfig.class);
        starting.forEach((mode, future) -> {
            try {
                services.put(mode, future.join());
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                String output = cause instanceof ExampleServer.StartFailure f ? f.output().toLowerCase(Locale.ROOT) : "";
                boolean refused = output.contains("idempotency_mode") && output.contains(mode.label());
                String why = refused ? "not available" : "did not start";
                Progress.say("  %s: %s%s", mode.label(), refused
                        ? "not available (the service refuses IDEMPOTENCY_MODE=" + mode.label() + ")"
                        : cause.getMessage(), refused ? "" : "; see " + workDir.resolve(framework + "-" + mode.label() + ".log"));
                unavailable.put(mode, why);
            }
        });
        return services;
    }

    /** Each service runs a warm-up of its own; the reserve service then completes the replay key and replays it. */
    private void warmUp(String framework, Map<HttpConfig, Service> services, List<HttpConfig> active, String replayKey) {
        for (HttpConfig config : active) {
            Service service = services.get(serviceOf(config));
            if (config == HttpConfig.REPLAY) {
                LoadResult first = new HttpLoad(service.server().address(), "/orders", BODY, 1, 201)
                        .closedLoop(1, i -> replayKey, Duration.ofSeconds(10));
                if (first.succeeded() != 1) {
                    throw new IllegalStateException("the replay key could not be completed: " + first.firstError());
                }
            }
            LoadResult warm = load(service).closedLoop(options.warmupRequests(),
                    keys(framework, config, "w", replayKey), options.warmupTime());
            Progress.say("  warm-up %s: %,d requests, %.0f req/s%s", config.label(), warm.succeeded() + warm.errors(),
                    warm.throughput(), warm.errors() > 0 ? ", " + warm.errors() + " errors, e.g. " + warm.firstError() : "");
        }
    }

    private static Cpu cpu(Service service, List<Long> backends) {
        long pid = service.server().pid();
        return new Cpu(CpuMeter.cpuNanos(pid), CpuMeter.cpuNanos(backends), CpuMeter.selfNanos(),
                CpuMeter.jitCompilerNanos(pid));
    }

    /**
     * E.g. {@code off 633 µs (JIT 290)}: a service still compiling its hot paths spends much of
     * a phase's CPU in the compiler's threads — more for a configuration that runs more code — and
     * that work is gone once it is warm.
     */
    private static String jitSummary(Map<HttpConfig, List<LoadResult>> capacity, Map<HttpConfig, Cpu> cpu) {
        List<String> parts = new ArrayList<>();
        cpu.forEach((config, c) -> {
            LoadResult merged = LoadResult.merge(capacity.get(config));
            double requests = Math.max(1, merged.succeeded() + merged.errors());
            parts.add(String.format(Locale.ROOT, "%s %.0f µs (JIT %.0f)", config.label(), c.service() / requests / 1e3,
                    c.serviceJit() / requests / 1e3));
        });
        return String.join(", ", parts);
    }

    private HttpLoad load(Service service) {
        return new HttpLoad(service.server().address(), "/orders", BODY, options.connections(), 201);
    }

    /** Unique keys per configuration and phase; the one completed key for replays. */
    private IntFunction<String> keys(String framework, HttpConfig config, String phase, String replayKey) {
        if (config == HttpConfig.REPLAY) {
            return i -> replayKey;
        }
        String prefix = runId + "-" + framework + "-" + config.label() + "-" + phase + "-";
        return i -> prefix + i;
    }

    private static List<HttpConfig> rotated(List<HttpConfig> configs, int round) {
        List<HttpConfig> order = new ArrayList<>(configs);
        if (!order.isEmpty()) {
            java.util.Collections.rotate(order, -(round % order.size()));
        }
        return order;
    }

    private static String summary(Map<HttpConfig, List<LoadResult>> capacity, int round) {
        List<String> parts = new ArrayList<>();
        capacity.forEach((config, results) -> parts.add(String.format(Locale.ROOT, "%s %.0f",
                config.label(), results.get(round).throughput())));
        return String.join(", ", parts) + " req/s";
    }

    private static String latencySummary(Map<HttpConfig, List<LoadResult>> latency) {
        List<String> parts = new ArrayList<>();
        latency.forEach((config, results) -> {
            LoadResult merged = LoadResult.merge(results);
            parts.add(String.format(Locale.ROOT, "%s p50 %.1f p99 %.1f ms", config.label(),
                    merged.latencyMillis(0.5), merged.latencyMillis(0.99)));
        });
        return String.join(", ", parts);
    }
}
