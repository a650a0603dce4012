package dev.idempotency.bench;

import dev.idempotency.bench.http.HttpLoad;
import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.redis.RedisProbe;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * {@link HttpServices} starts the services, {@link TurnMeter} reads what each closed-loop turn used.
 */
final class HttpSuite {

    /** The example's order, as in its README; every configuration sends the same bytes. */
    static final byte[] BODY = "{\"item\":\"book\",\"quantity\":1}".getBytes(StandardCharsets.UTF_8);

    private final Options options;
    private final BenchDatabase database;
    private final HttpServices httpServices;
    private final String runId = Long.toString(System.currentTimeMillis(), 36);
    /** Every Redis key the services write starts with this; removed after each framework. */
    private final String redisPrefix = "bench:" + runId + ":";

    HttpSuite(Options options, BenchDatabase database, Path workDir) {
        this.options = options;
        this.database = database;
        this.httpServices = new HttpServices(options, database, workDir, runId, redisPrefix);
    }

    /**
     * The rows of every framework, each framework's open-loop rate, and the Redis server the
     * {@code redis} rows ran on ({@code null} without them).
     */
    record Result(List<HttpRow> rows, Map<String, Double> openLoopRates, String redis) {
    }

    Result run() throws SQLException, IOException {
        List<HttpRow> rows = new ArrayList<>();
        Map<String, Double> rates = new LinkedHashMap<>();
        try (TurnMeter meter = TurnMeter.open(options, database)) {
            String redisDescription = meter.redisDescription(options);
            if (redisDescription != null) {
                Progress.say("%s; the services' keys under %s*, removed after each framework", redisDescription, redisPrefix);
            }
            for (String framework : options.frameworks()) {
                try {
                    rows.addAll(runFramework(framework, rates, meter));
                } finally {
                    database.dropSchemas();
                    removeRedisKeys();
                }
            }
            return new Result(rows, rates, redisDescription);
        }
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

    private List<HttpRow> runFramework(String framework, Map<String, Double> rates, TurnMeter meter)
            throws SQLException, IOException {
        List<HttpRow> rows = new ArrayList<>();
        for (List<HttpCase> group : groups(framework)) {
            if (!group.isEmpty()) {
                rows.addAll(runGroup(framework, group, rates, meter));
            }
        }
        return rows;
    }

    private List<HttpRow> runGroup(String framework, List<HttpCase> cases, Map<String, Double> rates, TurnMeter meter)
            throws SQLException, IOException {
        String group = cases.get(0).group();
        Progress.say("HTTP %s%s: starting the services (%s)", framework, group.isEmpty() ? "" : ", " + group + " pair",
                cases.stream().map(HttpCase::service).distinct().map(HttpCase::label).toList());
        Map<HttpCase, String> unavailable = new LinkedHashMap<>();
        Map<HttpCase, HttpServices.Service> services = httpServices.start(framework, cases, unavailable);
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
            Map<HttpCase, TurnMeter.Usage> used = new LinkedHashMap<>();
            int perRound = Math.max(1, options.requests() / options.rounds());
            for (int round = 0; round < options.rounds(); round++) {
                for (HttpCase c : rotated(active, round)) {
                    HttpServices.Service service = services.get(c.service());
                    TurnMeter.Reading before = meter.start(service);
                    LoadResult result = load(service).closedLoop(perRound,
                            keys(framework, c, "c" + round), options.phaseTimeLimit());
                    used.merge(c, before.stop(), TurnMeter.Usage::plus);
                    capacity.computeIfAbsent(c, k -> new ArrayList<>()).add(result);
                }
                Progress.say("  capacity round %d/%d: %s", round + 1, options.rounds(), summary(capacity, round));
            }
            Progress.say("  service CPU per request, of which the JIT compiler's threads: %s", jitSummary(capacity, used));
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
                TurnMeter.Usage u = used.get(c);
                rows.add(new HttpRow(framework, c.config(), LoadResult.merge(capacity.get(c)), rounds,
                        LoadResult.merge(latency.get(c)), u.jdbc(), u.cpu(), null, c.store(),
                        HttpServices.jdbcCounted(framework, c.store()), u.redisCalls(), u.pgSegments(),
                        u.redisSegments(), c.group()));
            }
            return rows;
        } finally {
            services.values().parallelStream().forEach(s -> s.server().close());
        }
    }

    /** Each service runs a warm-up of its own; the reserve service then completes the replay key and replays it. */
    private void warmUp(String framework, Map<HttpCase, HttpServices.Service> services, List<HttpCase> active) {
        for (HttpCase c : active) {
            HttpServices.Service service = services.get(c.service());
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

    /**
     * E.g. {@code off 600 µs (JIT 300)}: a service still compiling its hot paths spends much of
     * a phase's CPU in the compiler's threads — more for a configuration that runs more code — and
     * that work is gone once it is warm.
     */
    private static String jitSummary(Map<HttpCase, List<LoadResult>> capacity, Map<HttpCase, TurnMeter.Usage> usage) {
        List<String> parts = new ArrayList<>();
        usage.forEach((c, u) -> {
            TurnMeter.Cpu used = u.cpu();
            LoadResult merged = LoadResult.merge(capacity.get(c));
            double requests = Math.max(1, merged.succeeded() + merged.errors());
            parts.add(String.format(Locale.ROOT, "%s %.0f µs (JIT %.0f)", c.label(), used.service() / requests / 1e3,
                    used.serviceJit() / requests / 1e3));
        });
        return String.join(", ", parts);
    }

    private HttpLoad load(HttpServices.Service service) {
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
