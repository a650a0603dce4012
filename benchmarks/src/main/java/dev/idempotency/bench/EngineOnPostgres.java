package dev.idempotency.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.adapter.RequestView;
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
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine on PostgreSQL without HTTP: fresh keys through {@code before} → handler → {@code finish}
 * in each mode, the handler one {@code INSERT}, next to that {@code INSERT} alone ({@code bare}) and
 * the SQL floor of a fresh key ({@code floor-reserve}, {@code floor-atomic}: the same statements written
 * by hand, without the engine).
 * Threads share one HikariCP pool in this JVM; the cases take turns in rotated order for a few
 * rounds. Per case: requests per second, the client's CPU per request (this JVM from {@code /proc},
 * and the request threads alone), and the CPU of the PostgreSQL backends serving the pool
 * (found by application name). Ratios are to {@code bare} of the same run.
 *
 * <p>{@code java -cp … dev.idempotency.bench.EngineOnPostgres [option...]}, the options of {@link EngineOptions}.
 */
public final class EngineOnPostgres {

    private static final byte[] BODY = "{\"item\":\"book\",\"quantity\":1}".getBytes(StandardCharsets.UTF_8);
    private static final String INSERT = "INSERT INTO bench_orders (tenant, item, quantity, status) VALUES (?, ?, ?, ?)";
    /** The floor's reservation: the in-flight row, nothing else (no lease take-over, no replay read). */
    private static final String FLOOR_RESERVE = "INSERT INTO idempotency_keys (key, tenant_id, caller, method, path, "
            + "request_hash, state, owner_token, locked_until, format_version, expires_at, created_at) "
            + "VALUES (?, 'default', ''::bytea, 'POST', '/orders', ?, 'IN_FLIGHT', ?, ?, 1, ?, ?) ON CONFLICT DO NOTHING";
    /** The floor's completion: the response into the row its owner holds. */
    private static final String FLOOR_COMPLETE = "UPDATE idempotency_keys SET state = 'COMPLETED', locked_until = NULL, "
            + "response_status = 201, response_content_type = 'application/json', response_headers = ?, response_body = ? "
            + "WHERE key = ? AND tenant_id = 'default' AND caller = ''::bytea AND method = 'POST' AND path = '/orders' "
            + "AND owner_token = ?";
    private static final String FINGERPRINT = "0".repeat(64);

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
    private record Turn(long requests, long errors, long wallNanos, long clientNanos, long threadNanos, long jitNanos,
                        long backendNanos) {
    }

    public static void main(String[] args) throws Exception {
        EngineOptions o = EngineOptions.parse(args);
        int threads = o.threads();
        double seconds = o.seconds();
        int rounds = o.rounds();
        double warmup = o.warmupSeconds();
        String base = o.databaseUrl();
        List<String> cases = o.cases();
        Path results = o.results();

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
                    String head = header(o, started, Machine.describe(Path.of("."), database.describe()), loadBefore,
                            Machine.loadAverage());
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
        double bareTotal = (bare[3] + bare[6]) / bare[0];
        StringBuilder sb = new StringBuilder();
        sb.append("| case | req/s | × bare | client µs/req (JVM) | of it request threads | of it JIT compiler "
                + "| backends µs/req | total µs/req | client × bare | backends × bare | total × bare | total × its floor "
                + "| errors |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (var e : turns.entrySet()) {
            double[] s = sums(e.getValue());
            double n = s[0];
            double rate = n * 1e9 / s[2];
            double client = s[3] / n / 1e3;
            double backend = s[6] / n / 1e3;
            List<Turn> floor = turns.get(e.getKey().equals("atomic") ? "floor-atomic"
                    : e.getKey().equals("reserve") || e.getKey().equals("optimistic") ? "floor-reserve" : "");
            String toFloor = "";
            if (floor != null) {
                double[] f = sums(floor);
                toFloor = String.format(Locale.ROOT, "%.2f×", (s[3] + s[6]) / n / ((f[3] + f[6]) / f[0]));
            }
            sb.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f× | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f× | %.2f× "
                            + "| %.2f× | %s | %d |%n",
                    e.getKey(), rate, rate / (bare[0] * 1e9 / bare[2]), client, s[4] / n / 1e3, s[5] / n / 1e3,
                    backend, client + backend, client / (bare[3] / bare[0] / 1e3), backend / (bare[6] / bare[0] / 1e3),
                    (client + backend) / (bareTotal / 1e3), toFloor, (long) s[1]));
        }
        sb.append("\nPer request, summed over the rounds: **client** = this JVM's CPU (user + system, `/proc`, "
                + "all threads: the pool, the collector, the JIT compiler), **request threads** = the CPU time of the threads "
                + "running the requests (`ThreadMXBean`), **JIT compiler** = the compiler threads' share of the client "
                + "(a warm-up cost, large on a busy machine), **backends** = the PostgreSQL processes serving the pool's "
                + "connections (`/proc/<pid>/stat`). `bare` = the handler's `INSERT` alone on a pooled connection. "
                + "`floor-reserve` and `floor-atomic` = the SQL floor: the in-flight row's `INSERT`, the handler's `INSERT` "
                + "and the completing `UPDATE` written by hand, without the engine — three autocommit statements, or one "
                + "transaction whose `UPDATE` carries the `COMMIT`; **total × its floor** compares reserve and optimistic "
                + "with `floor-reserve`, atomic with `floor-atomic`.\n");
        return sb.toString();
    }

    private static double[] sums(List<Turn> ts) {
        double[] s = new double[7];
        for (Turn t : ts) {
            s[0] += t.requests;
            s[1] += t.errors;
            s[2] += t.wallNanos;
            s[3] += t.clientNanos;
            s[4] += t.threadNanos;
            s[5] += t.jitNanos;
            s[6] += t.backendNanos;
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
        long self = ProcessHandle.current().pid();
        long jit0 = CpuMeter.jitCompilerNanos(self);
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
                CpuMeter.jitCompilerNanos(self) - jit0, CpuMeter.cpuNanos(backends) - backend0);
    }

    private void request(String c) throws SQLException {
        if (c.equals("bare")) {
            try (Connection connection = pool.getConnection()) {
                insert(connection);
            }
            return;
        }
        String key = run + "-" + keys.incrementAndGet();
        if (c.startsWith("floor-")) {
            floor(key, c.equals("floor-atomic"));
            return;
        }
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

    /**
     * The SQL floor of a fresh key: the statements any store of this table needs, hand-written and
     * without the engine — the in-flight row, the handler's INSERT, the completion — as three
     * autocommit statements (reserve) or in one transaction whose completion message carries the
     * COMMIT (atomic).
     */
    private void floor(String key, boolean atomic) throws SQLException {
        String owner = UUID.randomUUID().toString();
        Instant now = Instant.now();
        if (atomic) {
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                floorReserve(connection, key, owner, now);
                long id = insert(connection);
                floorComplete(connection, key, owner, id, "; COMMIT");
            }
            return;
        }
        try (Connection connection = pool.getConnection()) {
            floorReserve(connection, key, owner, now);
        }
        long id;
        try (Connection connection = pool.getConnection()) {
            id = insert(connection);
        }
        try (Connection connection = pool.getConnection()) {
            floorComplete(connection, key, owner, id, "");
        }
    }

    private static void floorReserve(Connection connection, String key, String owner, Instant now)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(FLOOR_RESERVE)) {
            ps.setString(1, key);
            ps.setString(2, FINGERPRINT);
            ps.setString(3, owner);
            ps.setObject(4, OffsetDateTime.ofInstant(now.plusSeconds(30), ZoneOffset.UTC));
            ps.setObject(5, OffsetDateTime.ofInstant(now.plusSeconds(86_400), ZoneOffset.UTC));
            ps.setObject(6, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("not a fresh key");
            }
        }
    }

    private static void floorComplete(Connection connection, String key, String owner, long id, String then)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(FLOOR_COMPLETE + then)) {
            ps.setString(1, "[[\"Location\",\"/orders/" + id + "\"]]");
            ps.setBytes(2, ("{\"id\":" + id + ",\"item\":\"book\",\"quantity\":1,\"status\":\"created\"}")
                    .getBytes(StandardCharsets.UTF_8));
            ps.setString(3, key);
            ps.setString(4, owner);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("the reservation is gone");
            }
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

    /** The results file's header: when, the command lines ({@link EngineOptions#header}), the machine, the load. */
    static String header(EngineOptions o, ZonedDateTime started, Machine m, double loadBefore, double loadAfter) {
        return "# Engine on PostgreSQL, fresh keys — " + started.format(DateTimeFormatter.ISO_LOCAL_DATE_TIME) + " UTC\n\n"
                + o.header() + "\n" + m.cores() + " cores (" + m.cpu() + "), " + m.jdk() + ", " + m.database() + ", commit "
                + m.commit() + ".\n\n" + String.format(Locale.ROOT, "Load average %.2f before, %.2f after. %d threads, one "
                + "HikariCP pool of %d, %d rounds of %.1f s per case (rotated order) after %.1f s of warm-up per case.%n%n",
                loadBefore, loadAfter, o.threads(), o.threads(), o.rounds(), o.seconds(), o.warmupSeconds());
    }
}
