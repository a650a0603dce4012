package dev.idempotency.jdbc.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.HeaderCodec;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput of the store on PostgreSQL with 16 threads: fresh reservations, full reserve +
 * complete cycles (by default, and with the reservation committed asynchronously), replays of completed keys (through reserve, as the default mode does, and
 * through find, as the optimistic mode does), and a plain single-row INSERT as the ceiling.
 *
 * <p>Run with {@code mvn -pl idempotency-jdbc -Pbench verify} (core installed first). The database is
 * {@code IDEMPOTENCY_BENCH_POSTGRES_URL} (user/password in {@code …_USER}/{@code …_PASSWORD}), else
 * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}. It works in a schema of its own,
 * dropped at the end. Each workload warms up once ({@code -Dbench.warmup=3} s), then the workloads run
 * in {@code -Dbench.rounds=3} interleaved rounds of {@code -Dbench.seconds=6} s each, and the median
 * round counts: on a shared machine, load from elsewhere then falls on every workload alike.
 * {@code -Dbench.threads=16}; {@code -Dbench.cycleOnly=true} runs only the ceiling and the full cycles.
 */
public final class StoreBenchmark {

    private static final int THREADS = Integer.getInteger("bench.threads", 16);
    private static final Duration WARMUP = Duration.ofSeconds(Integer.getInteger("bench.warmup", 3));
    private static final Duration MEASURE = Duration.ofSeconds(Integer.getInteger("bench.seconds", 6));
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
    private static final int COMPLETED_KEYS = 10_000;
    private static final boolean CYCLE_ONLY = Boolean.getBoolean("bench.cycleOnly");
    /** Also run the cycle with the completion as it was while the ttl counted from completion. */
    private static final boolean COMPARE_EXPIRY_UPDATE = Boolean.getBoolean("bench.compareExpiryUpdate");
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

            JdbcStore asyncStore = JdbcStore.builder(pool).asynchronousReservationCommit(true).build();
            Runnable cycle = () -> cycle(store);
            Runnable asyncCycle = () -> cycle(asyncStore);
            List<RecordKey> completed = new ArrayList<>(COMPLETED_KEYS);
            for (int i = 0; i < COMPLETED_KEYS; i++) {
                RecordKey key = newKey();
                store.insertCompleted(key, FP, RESPONSE, Instant.now(), TTL);
                completed.add(key);
            }
            Instant replayAt = Instant.now();

            Map<String, Runnable> workloads = new LinkedHashMap<>();
            workloads.put("plain INSERT of one row (ceiling)", () -> plainInsert(pool));
            workloads.put("reserve + complete, fresh key", cycle);
            workloads.put("reserve + complete, asynchronousReservationCommit", asyncCycle);
            if (COMPARE_EXPIRY_UPDATE) {
                workloads.put("reserve + complete moving expires_at (not HOT)", () -> cycleMovingExpiry(store, pool));
            }
            if (!CYCLE_ONLY) {
                workloads.put("reserve, fresh key", () -> store.reserve(newKey(), FP, Instant.now(), LEASE, TTL));
                workloads.put("replay through reserve (default mode)", () -> {
                    RecordKey key = completed.get(ThreadLocalRandom.current().nextInt(completed.size()));
                    if (!(store.reserve(key, FP, replayAt, LEASE, TTL) instanceof ReserveResult.Existing)) {
                        throw new IllegalStateException("not a replay");
                    }
                });
                workloads.put("replay through find (optimistic mode)", () -> {
                    RecordKey key = completed.get(ThreadLocalRandom.current().nextInt(completed.size()));
                    store.find(key, replayAt).orElseThrow();
                });
            }

            // Rounds interleave the workloads, so load from outside the benchmark falls on all of them alike.
            workloads.forEach((name, op) -> run(name, op, WARMUP));
            Map<String, List<Double>> rates = new LinkedHashMap<>();
            for (int round = 1; round <= ROUNDS; round++) {
                for (Map.Entry<String, Runnable> w : workloads.entrySet()) {
                    double rate = run(w.getKey(), w.getValue(), MEASURE);
                    rates.computeIfAbsent(w.getKey(), k -> new ArrayList<>()).add(rate);
                    System.out.printf("round %d  %-52s %,10.0f ops/s%n", round, w.getKey(), rate);
                }
            }
            List<Result> results = new ArrayList<>();
            rates.forEach((name, list) -> results.add(new Result(name, list)));
            report(results);
        } finally {
            try (Connection admin = DriverManager.getConnection(url, user, password);
                 Statement s = admin.createStatement()) {
                System.out.println(hotShare(admin, schema));
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /**
     * The table: medians, and the ratio to the ceiling both as median over median and as the
     * median of the per-round ratios (each round's workloads ran back to back with that round's
     * ceiling, so a load change between rounds cancels out of the latter).
     */
    private static void report(List<Result> results) {
        Result ceiling = results.get(0);
        System.out.println();
        System.out.printf("| workload (%d threads; median of %d interleaved %d s rounds) | ops/s | min–max "
                + "| × plain INSERT | × plain INSERT, per round (median) |%n", THREADS, ROUNDS, MEASURE.toSeconds());
        System.out.println("|---|---:|---:|---:|---:|");
        for (Result r : results) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < r.rates().size(); i++) {
                ratios.add(r.rates().get(i) / ceiling.rates().get(i));
            }
            System.out.printf("| %s | %,.0f | %,.0f–%,.0f | %.2f | %.2f |%n", r.name(), r.median(), r.min(), r.max(),
                    r.median() / ceiling.median(), median(ratios));
        }
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private record Result(String name, List<Double> rates) {
        double median() {
            return StoreBenchmark.median(rates);
        }

        double min() {
            return rates.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        }

        double max() {
            return rates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        }
    }

    /** One full cycle: a fresh key reserved, then completed with the response. */
    private static void cycle(JdbcStore store) {
        Reservation r = ((ReserveResult.Acquired) store.reserve(newKey(), FP, Instant.now(), LEASE, TTL))
                .reservation();
        r.complete(RESPONSE);
    }

    /**
     * The cycle with the completing UPDATE the store sent while the ttl counted from completion:
     * the same statement plus {@code expires_at = now + ttl}, which touches an indexed column and so
     * is never a HOT update. For comparison only ({@code -Dbench.compareExpiryUpdate=true}).
     */
    private static void cycleMovingExpiry(JdbcStore store, HikariDataSource pool) {
        Reservation r = ((ReserveResult.Acquired) store.reserve(newKey(), FP, Instant.now(), LEASE, TTL))
                .reservation();
        try (Connection c = pool.getConnection(); PreparedStatement s = c.prepareStatement(
                "UPDATE idempotency_keys SET state = 'COMPLETED', locked_until = NULL, response_status = ?, "
                        + "response_content_type = ?, response_headers = ?, response_body = ?, format_version = ?, "
                        + "expires_at = ? WHERE key = ? AND tenant_id = ? AND method = ? AND path = ? "
                        + "AND owner_token = ? AND state = 'IN_FLIGHT'")) {
            s.setShort(1, (short) RESPONSE.status());
            s.setString(2, RESPONSE.contentType());
            s.setString(3, HeaderCodec.encode(RESPONSE.headers()));
            s.setBytes(4, RESPONSE.body());
            s.setShort(5, (short) HeaderCodec.FORMAT_VERSION);
            s.setTimestamp(6, Timestamp.from(Instant.now().plus(TTL)));
            s.setString(7, r.key().key());
            s.setString(8, r.key().tenant());
            s.setString(9, r.key().method());
            s.setString(10, r.key().path());
            s.setString(11, r.ownerToken());
            if (s.executeUpdate() != 1) {
                throw new IllegalStateException("not completed");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
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

    /** Runs {@code op} on every thread for {@code length}; the completed operations per second. */
    private static double run(String name, Runnable op, Duration length) {
        AtomicLong counted = new AtomicLong();
        long end = System.nanoTime() + length.toNanos();
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {
                long mine = 0;
                try {
                    while (System.nanoTime() < end) {
                        op.run();
                        mine++;
                    }
                } finally {
                    counted.addAndGet(mine);
                    done.countDown();
                }
            }, "bench-" + i);
            t.start();
        }
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + name, e);
        }
        return counted.get() * 1e9 / length.toNanos();
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

    /**
     * How many of the table's updates (the completions; renew is not run) were heap-only-tuple
     * updates. The pool is closed by now, and a backend flushes its statistics as it exits; they
     * still arrive asynchronously, so wait until the count stops moving.
     */
    private static String hotShare(Connection admin, String schema) throws SQLException {
        long[] last = {-1, -1};
        for (int i = 0; i < 20; i++) {
            try (PreparedStatement ps = admin.prepareStatement("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                    + "WHERE schemaname = ? AND relname = 'idempotency_keys'")) {
                ps.setString(1, schema);
                try (ResultSet rs = ps.executeQuery(); Statement clear = admin.createStatement()) {
                    long[] now = rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {0, 0};
                    clear.execute("SELECT pg_stat_clear_snapshot()");
                    if (now[0] == last[0] && now[0] > 0) {
                        break;
                    }
                    last = now;
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return String.format("completions as HOT updates (all cycles together): %,d of %,d (%.1f %%)", last[1], last[0],
                last[0] == 0 ? 0.0 : 100.0 * last[1] / last[0]);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
