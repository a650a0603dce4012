package dev.idempotency.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Purging at scale: a table of {@code rows} records, a tenth of them expired and clustered
 * together in the heap (as a burst of traffic a day ago leaves them), the expiry index in place and
 * statistics fresh. Fresh keys (reserve + complete through {@link JdbcStore}, four clients) are
 * timed before the purge and while {@link PurgeScheduler#purge} works the backlog off in batches of
 * 1,000; then one more batch, which finds nothing, is timed — the batch every scheduler run ends
 * with.
 */
final class PurgeSuite {

    private static final int CLIENTS = 4;
    private static final int BATCH = 1_000;
    private static final Duration BEFORE = Duration.ofSeconds(8);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(24);
    private static final StoredResponse RESPONSE = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/1")), "{\"id\":1,\"status\":\"created\"}".getBytes());

    /** What the run measured. */
    record Result(int rows, int expired, int purged, long purgeMillis, long emptyBatchMillis, Latency before,
                  Latency during) {
        double rowsPerSecond() {
            return purged * 1000.0 / Math.max(1, purgeMillis);
        }
    }

    /** Fresh-key latency over one phase, milliseconds. */
    record Latency(int requests, double p50, double p99, double max) {
        static Latency of(List<Long> nanos) {
            long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
            if (sorted.length == 0) {
                return new Latency(0, 0, 0, 0);
            }
            return new Latency(sorted.length, millis(sorted, 0.50), millis(sorted, 0.99),
                    sorted[sorted.length - 1] / 1e6);
        }

        private static double millis(long[] sorted, double quantile) {
            return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)] / 1e6;
        }
    }

    private final BenchDatabase database;
    private final int rows;

    PurgeSuite(BenchDatabase database, int rows) {
        this.database = database;
        this.rows = rows;
    }

    Result run() throws Exception {
        String schema = database.createSchema("bench_purge");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.serviceUrl(schema, "bench-purge").replace("jdbc:counting:", "jdbc:"));
        config.setMaximumPoolSize(CLIENTS + 2);
        config.setPoolName("bench-purge");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcStore store = JdbcStore.builder(pool).build();
            store.createTableIfMissing();
            Instant now = Instant.now();
            int expired = rows / 10;
            Progress.say("purge: filling idempotency_keys with %,d records, %,d of them expired", rows, expired);
            fill(pool, expired, now.minus(Duration.ofHours(1)));
            fill(pool, rows - expired, now.plus(TTL));
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("VACUUM ANALYZE idempotency_keys");
            }
            database.checkpoint();

            Progress.say("purge: fresh keys for %d s, then while the purge runs", BEFORE.toSeconds());
            List<Long> before = new ArrayList<>();
            List<Long> during = new ArrayList<>();
            AtomicBoolean purging = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                running.add(clients.submit(() -> {
                    List<Long> mine = new ArrayList<>();
                    List<Long> mineDuring = new ArrayList<>();
                    while (!stop.get()) {
                        boolean phaseDuring = purging.get();
                        long t = System.nanoTime();
                        freshKey(store);
                        (phaseDuring ? mineDuring : mine).add(System.nanoTime() - t);
                    }
                    synchronized (before) {
                        before.addAll(mine);
                        during.addAll(mineDuring);
                    }
                    return null;
                }));
            }
            Thread.sleep(BEFORE.toMillis());
            purging.set(true);
            long t0 = System.nanoTime();
            int purged = PurgeScheduler.purge(store, now, BATCH, Integer.MAX_VALUE);
            long purgeMillis = (System.nanoTime() - t0) / 1_000_000;
            purging.set(false);
            stop.set(true);
            for (Future<?> f : running) {
                f.get();
            }
            clients.shutdown();
            long t1 = System.nanoTime();
            int none = store.purgeExpired(now, BATCH);
            long emptyMillis = (System.nanoTime() - t1) / 1_000_000;
            if (none != 0) {
                throw new IllegalStateException("the purge left " + none + " expired rows behind");
            }
            return new Result(rows, expired, purged, purgeMillis, emptyMillis, Latency.of(before), Latency.of(during));
        }
    }

    /** {@code count} completed records expiring at {@code expiresAt}, inserted together (adjacent in the heap). */
    private static void fill(HikariDataSource pool, int count, Instant expiresAt) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO idempotency_keys (key, tenant_id, method, path, request_hash, state, owner_token,
                    response_status, response_content_type, response_headers, response_body, format_version,
                    expires_at, created_at)
                SELECT 'fill-' || md5(random()::text) || g, 'default', 'POST', '/orders', md5(g::text) || md5(g::text),
                       'COMPLETED', md5(random()::text), 201, 'application/json', '[["Location","/orders/1"]]',
                       convert_to('{"id":' || g || ',"status":"created"}', 'UTF8'), 1, ?, CAST(? AS timestamptz) - interval '24 hours'
                FROM generate_series(1, ?) g""")) {
            java.sql.Timestamp at = java.sql.Timestamp.from(expiresAt);
            ps.setTimestamp(1, at);
            ps.setTimestamp(2, at);
            ps.setInt(3, count);
            ps.executeUpdate();
        }
    }

    private static void freshKey(JdbcStore store) {
        RecordKey key = new RecordKey("default", "POST", "/orders", "purge-bench-" + UUID.randomUUID());
        Instant now = Instant.now();
        if (!(store.reserve(key, "f".repeat(64), now, LEASE, TTL) instanceof ReserveResult.Acquired acquired)) {
            throw new IllegalStateException("a fresh key was not acquired");
        }
        if (!acquired.reservation().complete(RESPONSE)) {
            throw new IllegalStateException("a fresh key's completion was lost");
        }
    }

    /** The report's section. */
    static String section(Result r) {
        return String.format(Locale.ROOT, """
                ## Purging at scale (PostgreSQL, engine-level)

                %,d records, %,d of them expired and adjacent in the heap; `PurgeScheduler.purge` in batches of
                %,d while %d clients reserve and complete fresh keys through `JdbcStore`.

                | | figure |
                |---|---|
                | rows purged | %,d in %,d ms: **%,.0f rows/s** |
                | the batch that finds nothing (every run's last) | %d ms |
                | fresh key (reserve + complete) before the purge | p50 %.2f ms, **p99 %.2f ms**, max %.1f ms (%,d requests) |
                | fresh key during the purge | p50 %.2f ms, **p99 %.2f ms**, max %.1f ms (%,d requests) |
                """, r.rows(), r.expired(), BATCH, CLIENTS, r.purged(), r.purgeMillis(), r.rowsPerSecond(),
                r.emptyBatchMillis(), r.before().p50(), r.before().p99(), r.before().max(), r.before().requests(),
                r.during().p50(), r.during().p99(), r.during().max(), r.during().requests());
    }
}
