package dev.idempotency.jdbc.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.JdbcStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput of the store on PostgreSQL with 16 threads: fresh reservations, full reserve +
 * complete cycles, replays of completed keys (through reserve, as the default mode does, and
 * through find, as the optimistic mode does), and a plain single-row INSERT as the ceiling.
 *
 * <p>Run with {@code mvn -pl idempotency-jdbc -Pbench verify} (core installed first). The database is
 * {@code IDEMPOTENCY_BENCH_POSTGRES_URL} (user/password in {@code …_USER}/{@code …_PASSWORD}), else
 * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}. It works in a schema of its own,
 * dropped at the end. Timings: {@code -Dbench.warmup=5} and {@code -Dbench.seconds=10} per workload,
 * {@code -Dbench.threads=16}; {@code -Dbench.cycleOnly=true} runs only the ceiling and the full cycle.
 */
public final class StoreBenchmark {

    private static final int THREADS = Integer.getInteger("bench.threads", 16);
    private static final Duration WARMUP = Duration.ofSeconds(Integer.getInteger("bench.warmup", 5));
    private static final Duration MEASURE = Duration.ofSeconds(Integer.getInteger("bench.seconds", 10));
    private static final int COMPLETED_KEYS = 10_000;
    private static final boolean CYCLE_ONLY = Boolean.getBoolean("bench.cycleOnly");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(24);
    private static final String FP = "e".repeat(64);
    private static final byte[] BODY = ("{\"id\":\"ord_" + "x".repeat(200) + "\",\"status\":\"created\"}")
            .getBytes(StandardCharsets.UTF_8);
    private static final StoredResponse RESPONSE = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/ord_1")), BODY);

    private StoreBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String url = env("IDEMPOTENCY_BENCH_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test");
        String user = env("IDEMPOTENCY_BENCH_POSTGRES_USER", "postgres");
        String password = env("IDEMPOTENCY_BENCH_POSTGRES_PASSWORD", "");
        String schema = "idem_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = DriverManager.getConnection(url, user, password); Statement s = admin.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            System.out.println(environment(admin));
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(THREADS);
        config.setConnectionTimeout(3000);
        config.setPoolName("bench");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcStore store = JdbcStore.create(pool);
            store.createTableIfMissing();

            Runnable cycle = () -> {
                Reservation r = ((ReserveResult.Acquired) store.reserve(newKey(), FP, Instant.now(), LEASE, TTL))
                        .reservation();
                r.complete(RESPONSE, Instant.now(), TTL);
            };
            List<Result> results = new ArrayList<>();
            results.add(run("plain INSERT of one row (ceiling)", () -> plainInsert(pool)));
            if (CYCLE_ONLY) {
                results.add(run("reserve + complete, fresh key", cycle));
                report(results);
                return;
            }
            results.add(run("reserve, fresh key", () -> store.reserve(newKey(), FP, Instant.now(), LEASE, TTL)));
            results.add(run("reserve + complete, fresh key", cycle));

            List<RecordKey> completed = new ArrayList<>(COMPLETED_KEYS);
            for (int i = 0; i < COMPLETED_KEYS; i++) {
                RecordKey key = newKey();
                store.insertCompleted(key, FP, RESPONSE, Instant.now(), TTL);
                completed.add(key);
            }
            Instant replayAt = Instant.now();
            results.add(run("replay through reserve (default mode)", () -> {
                RecordKey key = completed.get(ThreadLocalRandom.current().nextInt(completed.size()));
                if (!(store.reserve(key, FP, replayAt, LEASE, TTL) instanceof ReserveResult.Existing)) {
                    throw new IllegalStateException("not a replay");
                }
            }));
            results.add(run("replay through find (optimistic mode)", () -> {
                RecordKey key = completed.get(ThreadLocalRandom.current().nextInt(completed.size()));
                store.find(key, replayAt).orElseThrow();
            }));

            report(results);
        } finally {
            try (Connection admin = DriverManager.getConnection(url, user, password);
                 Statement s = admin.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void report(List<Result> results) {
        double ceiling = results.get(0).perSecond();
        System.out.println();
        System.out.printf("| workload (%d threads, %d s each after %d s warm-up) | ops/s | × plain INSERT |%n",
                THREADS, MEASURE.toSeconds(), WARMUP.toSeconds());
        System.out.println("|---|---:|---:|");
        for (Result r : results) {
            System.out.printf("| %s | %,.0f | %.2f |%n", r.name(), r.perSecond(), r.perSecond() / ceiling);
        }
    }

    private record Result(String name, long ops, Duration elapsed) {
        double perSecond() {
            return ops * 1e9 / elapsed.toNanos();
        }
    }

    private static RecordKey newKey() {
        return new RecordKey("tenant-bench", "POST", "/orders", UUID.randomUUID().toString());
    }

    /** The same row a completed record is, written by one INSERT with nothing conditional about it. */
    private static void plainInsert(HikariDataSource pool) {
        try (Connection c = pool.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO idempotency_keys (key, tenant_id, method, path, request_hash, state, owner_token, "
                        + "response_status, response_content_type, response_headers, response_body, format_version, "
                        + "expires_at, created_at) VALUES (?, 'tenant-bench', 'POST', '/orders', ?, 'COMPLETED', ?, "
                        + "201, 'application/json', '[[\"Location\",\"/orders/ord_1\"]]', ?, 1, ?, ?)")) {
            Instant now = Instant.now();
            s.setString(1, UUID.randomUUID().toString());
            s.setString(2, FP);
            s.setString(3, UUID.randomUUID().toString());
            s.setBytes(4, BODY);
            s.setTimestamp(5, Timestamp.from(now.plus(TTL)));
            s.setTimestamp(6, Timestamp.from(now));
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Result run(String name, Runnable op) throws InterruptedException {
        AtomicLong counted = new AtomicLong();
        long warmupEnd = System.nanoTime() + WARMUP.toNanos();
        long measureEnd = warmupEnd + MEASURE.toNanos();
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {
                long mine = 0;
                try {
                    while (true) {
                        op.run();
                        long now = System.nanoTime();
                        if (now >= measureEnd) {
                            break;
                        }
                        if (now >= warmupEnd) {
                            mine++;
                        }
                    }
                } finally {
                    counted.addAndGet(mine);
                    done.countDown();
                }
            }, "bench-" + i);
            t.start();
        }
        done.await();
        Result result = new Result(name, counted.get(), MEASURE);
        System.out.printf("%-40s %,10.0f ops/s%n", name, result.perSecond());
        return result;
    }

    private static String environment(Connection c) throws SQLException {
        StringBuilder out = new StringBuilder();
        out.append("date: ").append(LocalDate.now()).append('\n');
        out.append("cores: ").append(Runtime.getRuntime().availableProcessors()).append('\n');
        out.append("java: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.version")).append('\n');
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT version(), current_setting('synchronous_commit'), current_setting('fsync'), "
                        + "current_setting('shared_buffers')")) {
            rs.next();
            out.append("database: ").append(rs.getString(1)).append('\n');
            out.append("synchronous_commit=").append(rs.getString(2)).append(", fsync=").append(rs.getString(3))
                    .append(", shared_buffers=").append(rs.getString(4));
        }
        return out.toString();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
