package dev.idempotency.bench;

import dev.idempotency.bench.http.ExampleServer;
import dev.idempotency.bench.http.HttpLoad;
import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import dev.idempotency.bench.jdbc.CountingDriver;
import dev.idempotency.bench.redis.RedisProbe;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
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
 *
 * <p>With {@link Options#stores()} beyond {@code jdbc}, the idempotent configurations also run on
 * {@code PgStore} (Vert.x) and {@code RedisStore}, each in a service of its own
 * ({@code IDEMPOTENCY_STORE}, {@code REDIS_URL}, a {@code REDIS_KEY_PREFIX} of the run's own), in
 * the same turns as the JDBC store's: store rows of one framework are measured side by side.
 */
final class HttpSuite {

    /** The example's order, as in its README; every configuration sends the same bytes. */
    static final byte[] BODY = "{\"item\":\"book\",\"quantity\":1}".getBytes(StandardCharsets.UTF_8);

    private final Options options;
    private final BenchDatabase database;
    private final Path workDir;
    private final String runId = Long.toString(System.currentTimeMillis(), 36);
    /** Every Redis key the services write starts with this; removed after each framework. */
    private final String redisPrefix = "bench:" + runId + ":";
    /** The runner's connection to Redis, when a {@code redis} row runs. */
    private RedisProbe redis;
    private long redisPid;

    HttpSuite(Options options, BenchDatabase database, Path workDir) {
        this.options = options;
        this.database = database;
        this.workDir = workDir;
    }

    /**
     * The rows of every framework, each framework's open-loop rate, and the Redis server the
     * {@code redis} rows ran on ({@code null} without them).
     */
    record Result(List<HttpRow> rows, Map<String, Double> openLoopRates, String redis) {
    }

    /** A running service, its JDBC counters and the name its database connections carry. */
    private record Service(ExampleServer server, Counters counters, String applicationName, BenchStore store) {
    }

    /**
     * CPU time spent during a phase, in nanoseconds; {@code serviceJit} is the part of
     * {@code service} that the service's JIT compiler threads spent.
     */
    record Cpu(long service, long database, long loadGenerator, long serviceJit, long redis) {
        static final Cpu ZERO = new Cpu(0, 0, 0, 0, 0);

        Cpu plus(Cpu o) {
            return new Cpu(service + o.service, database + o.database, loadGenerator + o.loadGenerator,
                    serviceJit + o.serviceJit, redis + o.redis);
        }

        Cpu minus(Cpu o) {
            return new Cpu(service - o.service, database - o.database, loadGenerator - o.loadGenerator,
                    serviceJit - o.serviceJit, redis - o.redis);
        }
    }

    Result run() throws SQLException, IOException {
        List<HttpRow> rows = new ArrayList<>();
        Map<String, Double> rates = new LinkedHashMap<>();
        String redisDescription = null;
        if (options.stores().contains(BenchStore.REDIS)) {
            redis = RedisProbe.connect(options.redisUrl());
            redisPid = redis.processId();
            if (CpuMeter.cpuNanos(redisPid) == 0) {
                Progress.say("redis-server (pid %d as it reports it) is not visible in /proc: its CPU is not counted",
                        redisPid);
                redisPid = -1;
            }
            redisDescription = "Redis " + redis.version() + " at " + options.redisUrl().replaceFirst("://[^@/]*@", "://");
            Progress.say("%s; the services' keys under %s*, removed after each framework", redisDescription, redisPrefix);
        }
        try {
            for (String framework : options.frameworks()) {
                try {
                    rows.addAll(runFramework(framework, rates));
                } finally {
                    database.dropSchemas();
                    removeRedisKeys();
                }
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        return new Result(rows, rates, redisDescription);
    }

    /** The Redis server's port, from {@code --redis-url}. */
    private int redisPort() {
        int port = java.net.URI.create(options.redisUrl()).getPort();
        return port < 0 ? 6379 : port;
    }

    /**
     * Best effort: the run's Redis keys (only those under its own prefix) are removed, over a
     * connection of its own (this also runs from the runner's shutdown hook).
     */
    void removeRedisKeys() {
        if (options.stores().contains(BenchStore.REDIS)) {
            try (RedisProbe probe = RedisProbe.connect(options.redisUrl())) {
                long removed = probe.deleteKeys(redisPrefix);
                if (removed > 0) {
                    Progress.say("  removed %,d Redis keys under %s", removed, redisPrefix);
                }
            } catch (RuntimeException e) {
                Progress.say("  could not remove the Redis keys under %s: %s", redisPrefix, e.getMessage());
            }
        }
    }

    /**
     * The groups of cases of a framework, each a set of services started together and measured in
     * rotated turns, then stopped: first the main group — {@code off} and the JdbcStore's
     * configurations, as without {@code --stores} — then, per other store and service mode, the
     * JdbcStore's and that store's service head to head (with the replays where the mode is
     * reserve). All of a framework's services at once would hold more connections than
     * PostgreSQL's {@code max_connections} (100 here): the JDBC pools keep 10 and grow to 16 (40
     * in the atomic mode), a PgStore service has a reactive pool beside its JDBC pool.
     */
    private List<List<HttpCase>> groups(String framework) {
        List<List<HttpCase>> groups = new ArrayList<>();
        List<HttpCase> main = new ArrayList<>();
        for (HttpConfig config : options.configs()) {
            if (config == HttpConfig.OFF || options.stores().contains(BenchStore.JDBC)) {
                main.add(new HttpCase(config, BenchStore.JDBC));
            }
        }
        groups.add(main);
        for (BenchStore store : options.stores()) {
            if (store == BenchStore.JDBC) {
                continue;
            }
            for (HttpConfig mode : options.configs().stream().map(c -> new HttpCase(c, store).service().config())
                    .distinct().toList()) {
                String group = store.label() + "-" + mode.label();
                List<HttpCase> pair = new ArrayList<>();
                for (HttpConfig config : options.configs()) {
                    if (new HttpCase(config, store).service().config() == mode && store.runs(framework, config)) {
                        pair.add(new HttpCase(config, BenchStore.JDBC, group));
                        pair.add(new HttpCase(config, store, group));
                    }
                }
                if (!pair.isEmpty()) {
                    groups.add(pair);
                }
            }
        }
        return groups;
    }

    private List<HttpRow> runFramework(String framework, Map<String, Double> rates) throws SQLException, IOException {
        List<HttpRow> rows = new ArrayList<>();
        for (List<HttpCase> group : groups(framework)) {
            if (!group.isEmpty()) {
                rows.addAll(runGroup(framework, group, rates));
            }
        }
        return rows;
    }

    private List<HttpRow> runGroup(String framework, List<HttpCase> cases, Map<String, Double> rates)
            throws SQLException, IOException {
        String group = cases.get(0).group();
        Progress.say("HTTP %s%s: starting the services (%s)", framework, group.isEmpty() ? "" : ", " + group + " pair",
                cases.stream().map(HttpCase::service).distinct().map(HttpCase::label).toList());
        Map<HttpCase, String> unavailable = new LinkedHashMap<>();
        Map<HttpCase, Service> services = startServices(framework, cases, unavailable);
        try {
            List<HttpCase> active = new ArrayList<>();
            for (HttpCase c : cases) {
                if (services.containsKey(c.service())) {
                    active.add(c);
                } else {
                    unavailable.putIfAbsent(c, unavailable.get(c.service()));
                }
            }
            warmUp(framework, services, active);

            Map<HttpCase, List<LoadResult>> capacity = new LinkedHashMap<>();
            Map<HttpCase, Counters.Snapshot> jdbc = new LinkedHashMap<>();
            Map<HttpCase, Cpu> cpu = new LinkedHashMap<>();
            Map<HttpCase, Map<String, Long>> redisCalls = new LinkedHashMap<>();
            Map<HttpCase, Long> pgSegments = new LinkedHashMap<>();
            Map<HttpCase, Long> redisSegments = new LinkedHashMap<>();
            boolean segments = !options.stores().equals(List.of(BenchStore.JDBC));
            int redisPort = redisPort();
            int perRound = Math.max(1, options.requests() / options.rounds());
            for (int round = 0; round < options.rounds(); round++) {
                for (HttpCase c : rotated(active, round)) {
                    Service service = services.get(c.service());
                    List<Long> backends = database.backendPids(service.applicationName());
                    long pid = service.server().pid();
                    Map<String, Long> pgSocketsBefore = segments ? SocketMeter.segmentsTo(pid, database.port()) : null;
                    Map<String, Long> redisSocketsBefore = segments && service.store() == BenchStore.REDIS
                            ? SocketMeter.segmentsTo(pid, redisPort) : null;
                    Counters.Snapshot before = service.counters().snapshot();
                    Map<String, Long> redisBefore = service.store() == BenchStore.REDIS ? redis.commandCalls() : null;
                    Cpu cpuBefore = cpu(service, backends);
                    LoadResult result = load(service).closedLoop(perRound,
                            keys(framework, c, "c" + round), options.phaseTimeLimit());
                    Cpu cpuAfter = cpu(service, backends);
                    if (pgSocketsBefore != null) {
                        pgSegments.merge(c, SocketMeter.delta(SocketMeter.segmentsTo(pid, database.port()), pgSocketsBefore),
                                Long::sum);
                    }
                    if (redisSocketsBefore != null) {
                        redisSegments.merge(c, SocketMeter.delta(SocketMeter.segmentsTo(pid, redisPort), redisSocketsBefore),
                                Long::sum);
                    }
                    if (redisBefore != null) {
                        Map<String, Long> delta = redisCallsMinus(redis.commandCalls(), redisBefore);
                        delta.forEach((command, calls) -> redisCalls.computeIfAbsent(c, k -> new LinkedHashMap<>())
                                .merge(command, calls, Long::sum));
                    }
                    jdbc.merge(c, service.counters().snapshot().minus(before), Counters.Snapshot::plus);
                    cpu.merge(c, cpuAfter.minus(cpuBefore), Cpu::plus);
                    capacity.computeIfAbsent(c, k -> new ArrayList<>()).add(result);
                }
                Progress.say("  capacity round %d/%d: %s", round + 1, options.rounds(), summary(capacity, round));
            }
            Progress.say("  service CPU per request, of which the JIT compiler's threads: %s", jitSummary(capacity, cpu));
            Map<HttpCase, List<LoadResult>> latency = new LinkedHashMap<>();
            if (!active.isEmpty()) {
                // a rate every configuration sustains, so latency shows service time rather than an overload
                double slowest = capacity.values().stream().mapToDouble(r -> LoadResult.merge(r).throughput())
                        .min().orElseThrow();
                double rate = Math.max(1, Math.round(slowest * options.openLoopFraction()));
                rates.put(group.isEmpty() ? framework : framework + " " + group + " pair", rate);
                int perLatencyRound = Math.max(1, options.openLoopRequests() / options.rounds());
                for (int round = 0; round < options.rounds(); round++) {
                    for (HttpCase c : rotated(active, round)) {
                        LoadResult result = load(services.get(c.service())).openLoop(perLatencyRound,
                                keys(framework, c, "o" + round), rate, options.phaseTimeLimit());
                        latency.computeIfAbsent(c, k -> new ArrayList<>()).add(result);
                    }
                }
                Progress.say("  latency at %.0f req/s: %s", rate, latencySummary(latency));
            }
            List<HttpRow> rows = new ArrayList<>();
            for (HttpCase c : cases) {
                if (!active.contains(c)) {
                    rows.add(HttpRow.unavailable(framework, c, unavailable.get(c)));
                    continue;
                }
                List<Double> rounds = capacity.get(c).stream().map(LoadResult::throughput).toList();
                rows.add(new HttpRow(framework, c.config(), LoadResult.merge(capacity.get(c)), rounds,
                        LoadResult.merge(latency.get(c)), jdbc.get(c), cpu.get(c), null, c.store(),
                        jdbcCounted(framework, c.store()), redisCalls.getOrDefault(c, Map.of()), pgSegments.getOrDefault(c, -1L),
                        redisSegments.getOrDefault(c, -1L), c.group()));
            }
            return rows;
        } finally {
            services.values().parallelStream().forEach(s -> s.server().close());
        }
    }

    /**
     * Starts one service per mode and store, side by side; one that does not start is recorded in
     * {@code unavailable}, as is one whose start-up line names another store than asked for (an
     * example without store selection ignores {@code IDEMPOTENCY_STORE} and {@code REDIS_URL}).
     */
    private Map<HttpCase, Service> startServices(String framework, List<HttpCase> cases, Map<HttpCase, String> unavailable)
            throws SQLException, IOException {
        Map<HttpCase, java.util.function.Supplier<Service>> starters = new LinkedHashMap<>();
        for (HttpCase mode : cases.stream().map(HttpCase::service).distinct().toList()) {
            String name = framework + "-" + mode.name();
            String schema = database.createSchema(("bench_" + runId + "_" + name).replace('-', '_'));
            Path countersFile = workDir.resolve(name + ".counters");
            Files.deleteIfExists(countersFile);
            Counters counters = Counters.mapped(countersFile);
            String applicationName = "bench-" + runId + "-" + name;
            Map<String, String> env = new HashMap<>(mode.config().env());
            env.put("PORT", "0");
            env.put("IDEMPOTENCY_STORE", mode.store().label());
            switch (mode.store()) {
                // WebFlux puts its orders on R2DBC only for a PostgreSQL URL: plain for every store
                case JDBC -> env.put("DATABASE_URL", jdbcCounted(framework, mode.store())
                        ? database.serviceUrl(schema, applicationName) : database.plainServiceUrl(schema, applicationName));
                // the examples take PgStore and R2dbcStore only for a PostgreSQL URL, so not through the counting driver
                case PG, R2DBC -> env.put("DATABASE_URL", database.plainServiceUrl(schema, applicationName));
                case REDIS -> {
                    env.put("DATABASE_URL", database.serviceUrl(schema, applicationName));
                    env.put("REDIS_URL", options.redisUrl());
                    env.put("REDIS_KEY_PREFIX", redisPrefix + name + ":");
                }
            }
            List<String> jvm = new ArrayList<>(options.serverJvmArgs());
            if (jdbcCounted(framework, mode.store())) {
                // not otherwise: Quarkus refuses to start on a property under its mapped idempotency.*
                jvm.add("-D" + CountingDriver.COUNTERS_PROPERTY + "=" + countersFile);
            }
            if (options.jfr()) {
                jvm.add("-XX:StartFlightRecording=settings=profile," + System.getenv().getOrDefault("BENCH_JFR_EVENTS", "")
                        + "filename=" + workDir.resolve(name + ".jfr"));
            }
            Path log = workDir.resolve(name + ".log");
            starters.put(mode, () -> new Service(
                    ExampleServer.start(options.root(), framework, env, jvm, log, Duration.ofSeconds(90)), counters,
                    applicationName, mode.store()));
        }
        Map<HttpCase, CompletableFuture<Service>> starting = new LinkedHashMap<>();
        starters.forEach((mode, starter) -> starting.put(mode, CompletableFuture.supplyAsync(starter)));
        Map<HttpCase, Service> services = new LinkedHashMap<>();
        starting.forEach((mode, future) -> {
            Path log = workDir.resolve(framework + "-" + mode.name() + ".log");
            try {
                Service service;
                try {
                    service = future.join();
                } catch (RuntimeException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    String output = cause instanceof ExampleServer.StartFailure f ? f.output() : "";
                    if (output.toLowerCase(Locale.ROOT).contains("idempotency_mode")) {
                        throw e;
                    }
                    // e.g. PgStore's pool gives up connecting after 2 s while every service of the
                    // framework starts at once on a busy machine: once more, alone
                    Progress.say("  %s: %s; starting it again, alone", mode.label(), firstLine(cause.getMessage(), output));
                    service = starters.get(mode).get();
                }
                String wrongStore = wrongStore(mode, service);
                if (wrongStore != null) {
                    Progress.say("  %s: %s; see %s", mode.label(), wrongStore, log);
                    service.server().close();
                    unavailable.put(mode, "the service did not select " + mode.store().storeClass());
                    return;
                }
                services.put(mode, service);
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                String output = cause instanceof ExampleServer.StartFailure f ? f.output().toLowerCase(Locale.ROOT) : "";
                boolean refused = output.contains("idempotency_mode") && output.contains(mode.config().label());
                String why = refused ? "not available" : "did not start";
                Progress.say("  %s: %s%s", mode.label(), refused
                        ? "not available (the service refuses IDEMPOTENCY_MODE=" + mode.config().label() + ")"
                        : cause.getMessage(), refused ? "" : "; see " + log);
                unavailable.put(mode, why);
            }
        });
        return services;
    }

    /**
     * Whether the service's JDBC statements go through the counting driver: not for the reactive
     * stores (a plain PostgreSQL URL), nor for WebFlux (its orders go through R2DBC), nor for
     * Quarkus (its class loader keeps the driver from the counting one, see {@link ExampleServer}).
     */
    private static boolean jdbcCounted(String framework, BenchStore store) {
        return store != BenchStore.PG && store != BenchStore.R2DBC && !framework.equals("webflux")
                && !framework.equals("quarkus");
    }

    /** The message, and the first line of the service's output that tells why, e.g. its exception. */
    private static String firstLine(String message, String output) {
        for (String line : output.split("\n")) {
            if (line.contains("Exception") || line.contains("Cannot start")) {
                return message + " (" + line.trim() + ")";
            }
        }
        return message;
    }

    /**
     * Why the service's start-up line ({@code ... | idempotency store: PgStore (...) ...}) does not
     * match the case's store, or {@code null} when it does (or names none: {@code off}).
     */
    private static String wrongStore(HttpCase mode, Service service) {
        if (mode.config() == HttpConfig.OFF) {
            return null;
        }
        String log;
        try {
            log = Files.readString(service.server().log());
        } catch (IOException e) {
            return null;
        }
        int at = log.indexOf("idempotency store: ");
        if (at < 0) {
            return null;
        }
        String line = log.substring(at, Math.max(at, log.indexOf('\n', at) < 0 ? log.length() : log.indexOf('\n', at)));
        String expected = mode.store().storeClass();
        boolean other = java.util.Arrays.stream(BenchStore.values()).filter(s -> s != mode.store())
                .anyMatch(s -> line.contains(s.storeClass()));
        if (line.contains(expected) && !other || mode.store() == BenchStore.JDBC && !other) {
            return null;
        }
        return "started on another store than " + expected + " (" + line.replaceFirst(", mode:.*", "") + ")";
    }

    /** Each service runs a warm-up of its own; the reserve service then completes the replay key and replays it. */
    private void warmUp(String framework, Map<HttpCase, Service> services, List<HttpCase> active) {
        for (HttpCase c : active) {
            Service service = services.get(c.service());
            if (c.config() == HttpConfig.REPLAY) {
                LoadResult first = new HttpLoad(service.server().address(), "/orders", BODY, 1, 201)
                        .closedLoop(1, i -> replayKey(framework, c), Duration.ofSeconds(10));
                if (first.succeeded() != 1) {
                    throw new IllegalStateException("the replay key could not be completed: " + first.firstError());
                }
            }
            LoadResult warm = load(service).closedLoop(options.warmupRequests(),
                    keys(framework, c, "w"), options.warmupTime());
            Progress.say("  warm-up %s: %,d requests, %.0f req/s%s", c.label(), warm.succeeded() + warm.errors(),
                    warm.throughput(), warm.errors() > 0 ? ", " + warm.errors() + " errors, e.g. " + warm.firstError() : "");
        }
    }

    private Cpu cpu(Service service, List<Long> backends) {
        long pid = service.server().pid();
        long redisCpu = service.store() == BenchStore.REDIS && redisPid > 0 ? CpuMeter.cpuNanos(redisPid) : 0;
        return new Cpu(CpuMeter.cpuNanos(pid), CpuMeter.cpuNanos(backends), CpuMeter.selfNanos(),
                CpuMeter.jitCompilerNanos(pid), redisCpu);
    }

    /** What the server executed in between, per command; the runner's own {@code INFO} calls left out. */
    private static Map<String, Long> redisCallsMinus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new java.util.TreeMap<>();
        after.forEach((command, calls) -> {
            long d = calls - before.getOrDefault(command, 0L);
            if (d > 0 && !command.equals("info")) {
                delta.put(command, d);
            }
        });
        return delta;
    }

    /**
     * E.g. {@code off 600 µs (JIT 300)}: a service still compiling its hot paths spends much of
     * a phase's CPU in the compiler's threads — more for a configuration that runs more code — and
     * that work is gone once it is warm.
     */
    private static String jitSummary(Map<HttpCase, List<LoadResult>> capacity, Map<HttpCase, Cpu> cpu) {
        List<String> parts = new ArrayList<>();
        cpu.forEach((c, used) -> {
            LoadResult merged = LoadResult.merge(capacity.get(c));
            double requests = Math.max(1, merged.succeeded() + merged.errors());
            parts.add(String.format(Locale.ROOT, "%s %.0f µs (JIT %.0f)", c.label(), used.service() / requests / 1e3,
                    used.serviceJit() / requests / 1e3));
        });
        return String.join(", ", parts);
    }

    private HttpLoad load(Service service) {
        return new HttpLoad(service.server().address(), "/orders", BODY, options.connections(), 201);
    }

    /** Unique keys per case and phase; the one completed key of its store's reserve service for replays. */
    private IntFunction<String> keys(String framework, HttpCase c, String phase) {
        if (c.config() == HttpConfig.REPLAY) {
            String replayKey = replayKey(framework, c);
            return i -> replayKey;
        }
        String prefix = runId + "-" + framework + "-" + c.name() + "-" + phase + "-";
        return i -> prefix + i;
    }

    private String replayKey(String framework, HttpCase c) {
        return runId + "-" + framework + "-" + c.name();
    }

    private static List<HttpCase> rotated(List<HttpCase> cases, int round) {
        List<HttpCase> order = new ArrayList<>(cases);
        if (!order.isEmpty()) {
            java.util.Collections.rotate(order, -(round % order.size()));
        }
        return order;
    }

    private static String summary(Map<HttpCase, List<LoadResult>> capacity, int round) {
        List<String> parts = new ArrayList<>();
        capacity.forEach((c, results) -> parts.add(String.format(Locale.ROOT, "%s %.0f",
                c.label(), results.get(round).throughput())));
        return String.join(", ", parts) + " req/s";
    }

    private static String latencySummary(Map<HttpCase, List<LoadResult>> latency) {
        List<String> parts = new ArrayList<>();
        latency.forEach((c, results) -> {
            LoadResult merged = LoadResult.merge(results);
            parts.add(String.format(Locale.ROOT, "%s p50 %.1f p99 %.1f ms", c.label(),
                    merged.latencyMillis(0.5), merged.latencyMillis(0.99)));
        });
        return String.join(", ", parts);
    }
}
