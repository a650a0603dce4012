package dev.idempotency.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.RequestView;
import dev.idempotency.jdbc.JdbcStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine on PostgreSQL without HTTP: fresh keys through {@code before} → handler → {@code finish}
 * in each mode, the handler one {@code INSERT}, next to that {@code INSERT} alone ({@code bare}).
 * Threads share one HikariCP pool in this JVM; the cases take turns in rotated order for a few
 * rounds. Per case: requests per second, the client's CPU per request (this JVM from {@code /proc},
 * and the request threads alone), and the CPU of the PostgreSQL backends serving the pool
 * (found by application name). Ratios are to {@code bare} of the same run.
 *
 * <p>{@code java -cp … dev.idempotency.bench.EngineOnPostgres [--threads=16] [--seconds=3]
 * [--rounds=3] [--warmup-seconds=5] [--cases=bare,optimistic,reserve,atomic] [--database-url=jdbc:postgresql://…] [--results=dir]}
 */
public final class EngineOnPostgres {

    private static final byte[] BODY = "{\"item\":\"book\",\"quantity\":1}".getBytes(StandardCharsets.UTF_8);
    private static final String INSERT = "INSERT INTO bench_orders (tenant, item, quantity, status) VALUES (?, ?, ?, ?)";
    private static final List<String> ALL_CASES = List.of("bare", "optimistic", "reserve", "atomic");

    private final HikariDataSource pool;
    private final Map<String, IdempotencyEngine> engines = new LinkedHashMap<>();
    private final AtomicLong keys = new AtomicLong();
    private final String run = Long.toString(System.nanoTime(), 36);
    private final List<String> cases;

    private EngineOnPostgres(HikariDataSource pool, JdbcStore store, List<String> cases) {
        this.pool = pool;
        this.cases = cases;
        engines.put("optimistic", new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.OPTIMISTIC).build()));
        engines.put("reserve", new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.RESERVE).build()));
        engines.put("atomic", new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build()));
    }

    /** What one turn of a case measured. */
    private record Turn(long requests, long errors, long wallNanos, long clientNanos, long threadNanos, long backendNanos) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        int threads = Integer.parseInt(o.getOrDefault("threads", "16"));
        double seconds = Double.parseDouble(o.getOrDefault("seconds", "3"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        double warmup = Double.parseDouble(o.getOrDefault("warmup-seconds", "5"));
        String base = o.getOrDefault("database-url", System.getenv().getOrDefault("BENCH_DATABASE_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        List<String> cases = List.of(o.getOrDefault("cases", String.join(",", ALL_CASES)).split(","));
        if (!ALL_CASES.containsAll(cases) || !cases.contains("bare")) {
            throw new IllegalArgumentException("--cases: some of " + ALL_CASES + ", bare among them");
        }
        Path results = Path.of(o.getOrDefault("results", "benchmarks/results"));

        var started = Machine.now();
        double loadBefore = Machine.loadAverage();
        String schema = "bench_engine_" + Long.toString(System.currentTimeMillis(), 36);
        String application = "bench-engine-" + schema;
        try (BenchDatabase database = new BenchDatabase(base)) {
            database.createSchema(schema);
            HikariConfig cfg = new HikariConfig();
            cfg.setJdbcUrl(database.plainServiceUrl(schema, application));
            cfg.setMaximumPoolSize(threads);
            cfg.setMinimumIdle(threads);
            try (HikariDataSource pool = new HikariDataSource(cfg)) {
                try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE bench_orders (id bigserial PRIMARY KEY, tenant text NOT NULL, "
                            + "item text NOT NULL, quantity int NOT NULL, status text NOT NULL)");
                }
                JdbcStore store = JdbcStore.create(pool);
                store.createTableIfMissing();
                EngineOnPostgres bench = new EngineOnPostgres(pool, store, cases);
                try {
                    String text = bench.measure(database, application, threads, seconds, rounds, warmup);
                    String head = "# Engine on PostgreSQL, fresh keys — " + started.format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                            + " UTC\n\n" + machine(Machine.describe(Path.of("."), database.describe())) + "\n\n"
                            + String.format(Locale.ROOT, "Load average %.2f before, %.2f after. %d threads, one HikariCP pool of %d, "
                                    + "%d rounds of %.1f s per case (rotated order) after %.1f s of warm-up per case.%n%n",
                            loadBefore, Machine.loadAverage(), threads, threads, rounds, seconds, warmup);
                    String all = head + text;
                    System.out.println(all);
                    Files.createDirectories(results);
                    Path file = results.resolve(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm")) + "-engine-pg.md");
                    Files.writeString(file, all, StandardCharsets.UTF_8);
                    System.err.println("written: " + file);
                } finally {
                    bench.engines.values().forEach(IdempotencyEngine::close);
                }
            }
        }
    }

    private String measure(BenchDatabase database, String application, int threads, double seconds, int rounds,
            double warmup) throws Exception {
        for (String c : cases) {
            System.err.println("warm-up " + c);
            turn(c, threads, warmup, List.of());
        }
        List<Long> backends = database.backendPids(application);
        if (backends.size() != threads) {
            System.err.println("note: " + backends.size() + " backends for " + threads + " pooled connections");
        }
        Map<String, List<Turn>> turns = new LinkedHashMap<>();
        cases.forEach(c -> turns.put(c, new ArrayList<>()));
        for (int r = 0; r < rounds; r++) {
            database.checkpoint();
            for (int i = 0; i < cases.size(); i++) {
                String c = cases.get((i + r) % cases.size());
                Turn t = turn(c, threads, seconds, backends);
                turns.get(c).add(t);
                System.err.printf(Locale.ROOT, "round %d %-10s %7.0f req/s  client %5.0f µs/req  backends %5.0f µs/req%n",
                        r + 1, c, t.requests * 1e9 / t.wallNanos, (double) t.clientNanos / t.requests / 1e3,
                        (double) t.backendNanos / t.requests / 1e3);
            }
        }
        return table(turns);
    }

    private static String table(Map<String, List<Turn>> turns) {
        double[] bare = sums(turns.get("bare"));
        StringBuilder sb = new StringBuilder();
        sb.append("| case | req/s | × bare | client µs/req (JVM) | of it request threads | backends µs/req | total µs/req "
                + "| client × bare | backends × bare | total × bare | errors |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (var e : turns.entrySet()) {
            double[] s = sums(e.getValue());
            double n = s[0];
            double rate = n * 1e9 / s[2];
            double client = s[3] / n / 1e3;
            double thread = s[4] / n / 1e3;
            double backend = s[5] / n / 1e3;
            double bRate = bare[0] * 1e9 / bare[2];
            double bClient = bare[3] / bare[0] / 1e3;
            double bBackend = bare[5] / bare[0] / 1e3;
            sb.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f× | %.0f | %.0f | %.0f | %.0f | %.2f× | %.2f× | %.2f× | %d |%n",
                    e.getKey(), rate, rate / bRate, client, thread, backend, client + backend,
                    client / bClient, backend / bBackend, (client + backend) / (bClient + bBackend), (long) s[1]));
        }
        sb.append("\nPer request, summed over the rounds: **client** = this JVM's CPU (user + system, `/proc`, "
                + "all threads: the pool, the collector, the JIT compiler), **request threads** = the CPU time of the threads "
                + "running the requests (`ThreadMXBean`), **backends** = the PostgreSQL processes serving the pool's connections "
                + "(`/proc/<pid>/stat`). `bare` = the handler's `INSERT` alone on a pooled connection.\n");
        return sb.toString();
    }

    private static double[] sums(List<Turn> ts) {
        double[] s = new double[6];
        for (Turn t : ts) {
            s[0] += t.requests;
            s[1] += t.errors;
            s[2] += t.wallNanos;
            s[3] += t.clientNanos;
            s[4] += t.threadNanos;
            s[5] += t.backendNanos;
        }
        return s;
    }

    private Turn turn(String c, int threads, double seconds, List<Long> backends) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong requests = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong threadNanos = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread w = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long cpu0 = mx.getCurrentThreadCpuTime();
                long n = 0;
                while (!stop.get()) {
                    try {
                        request(c);
                        n++;
                    } catch (Exception e) {
                        if (errors.incrementAndGet() == 1) {
                            System.err.println(c + ": " + e);
                        }
                    }
                }
                threadNanos.addAndGet(mx.getCurrentThreadCpuTime() - cpu0);
                requests.addAndGet(n);
            }, "bench-" + c + "-" + i);
            workers.add(w);
            w.start();
        }
        long client0 = CpuMeter.selfNanos();
        long backend0 = CpuMeter.cpuNanos(backends);
        long t0 = System.nanoTime();
        go.countDown();
        Thread.sleep((long) (seconds * 1000));
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        long wall = System.nanoTime() - t0;
        return new Turn(requests.get(), errors.get(), wall, CpuMeter.selfNanos() - client0, threadNanos.get(),
                CpuMeter.cpuNanos(backends) - backend0);
    }

    private void request(String c) throws SQLException {
        if (c.equals("bare")) {
            try (Connection connection = pool.getConnection()) {
                insert(connection);
            }
            return;
        }
        String key = run + "-" + keys.incrementAndGet();
        RequestView request = RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(key),
                "Content-Type", List.of("application/json")), BODY);
        Decision decision = engines.get(c).before(request);
        if (!(decision instanceof Decision.Proceed proceed)) {
            throw new IllegalStateException("not a fresh key: " + decision);
        }
        var transaction = proceed.execution().unwrap(Connection.class);
        long id;
        if (transaction.isPresent()) {
            id = insert(transaction.get());
        } else {
            try (Connection connection = pool.getConnection()) {
                id = insert(connection);
            }
        }
        CapturedResponse response = CapturedResponse.of(201,
                Map.of("Content-Type", List.of("application/json"), "Location", List.of("/orders/" + id)),
                ("{\"id\":" + id + ",\"item\":\"book\",\"quantity\":1,\"status\":\"created\"}").getBytes(StandardCharsets.UTF_8));
        if (proceed.execution().finish(response).isPresent()) {
            throw new IllegalStateException("the engine replaced the response");
        }
    }

    private static long insert(Connection connection) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT, new String[] {"id"})) {
            insert.setString(1, "t");
            insert.setString(2, "book");
            insert.setInt(3, 1);
            insert.setString(4, "created");
            insert.executeUpdate();
            try (ResultSet rs = insert.getGeneratedKeys()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String machine(Machine m) {
        return m.cores() + " cores (" + m.cpu() + "), " + m.jdk() + ", " + m.database() + ", commit " + m.commit() + ".";
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (String a : args) {
            if (!a.startsWith("--") || !a.contains("=")) {
                throw new IllegalArgumentException("expected --name=value, got: " + a);
            }
            o.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        return o;
    }
}
