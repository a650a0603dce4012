package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completing UPDATE changes no indexed column (the ttl counts from the reservation), so
 * PostgreSQL does it as a heap-only-tuple (HOT) update: no new entries in the primary-key index
 * or in {@code idempotency_keys_expires_at_idx}. Measured on the table's own counters in
 * {@code pg_stat_user_tables}, in a database of the test's own: a snapshot held anywhere else in
 * the same database (another test's, another build's) would keep the replaced row versions from being
 * pruned, and so the completions from being HOT.
 *
 * <p>Statistics reach those counters asynchronously. The store runs on a pool of one connection,
 * so the backend that did the updates is the one asked to flush them
 * ({@code pg_stat_force_next_flush()}, PostgreSQL 15+); the counters are then polled with a
 * timeout, which also covers older servers, where an idle backend flushes within seconds.
 */
class PostgresHotCompletionTest {

    private static final Logger log = LoggerFactory.getLogger(PostgresHotCompletionTest.class);

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(24);
    private static final Instant NOW = Instant.parse("2031-03-01T12:00:00Z");
    /** About the benchmark's body: ~230 bytes of JSON and one stored header. */
    private static final StoredResponse RESPONSE = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/ord_0123456789")), ("{\"id\":\"ord_0123456789\",\"status\":\"created\","
            + "\"amount\":{\"value\":\"1999.00\",\"currency\":\"EUR\"},\"customer\":\"cus_ABCDEFGHIJ\","
            + "\"items\":[{\"sku\":\"SKU-1\",\"qty\":2},{\"sku\":\"SKU-2\",\"qty\":1}],"
            + "\"created_at\":\"2031-03-01T12:00:00Z\",\"note\":\"hot update test body\"}")
            .getBytes(StandardCharsets.UTF_8));

    @Test
    void aCompletionRightAfterItsReservationIsAHotUpdate() throws Exception {
        int cycles = 400;

        Counters counters = updatesOnAFreshTable("hot-cycle", cycles, (store, pool) -> {
            for (int i = 0; i < cycles; i++) {
                assertThat(acquire(store, i).complete(RESPONSE)).isTrue();
            }
        });

        assertThat(counters.hotShare()).as("HOT share of %s", counters).isGreaterThanOrEqualTo(0.8);
    }

    @Test
    void completionsStayHotWhileOtherReservationsAreInFlight() throws Exception {
        // Eight handlers overlap: each reservation completes only after the next seven were
        // written, so its page keeps filling with in-flight rows while it runs. The room the
        // table's fillfactor keeps free is what the grown (completed) row moves into; at
        // fillfactor 100 about half of these completions were not HOT.
        int requests = 400;
        int overlap = 8;

        Counters counters = updatesOnAFreshTable("hot-overlap", requests, (store, pool) -> {
            ArrayDeque<Reservation> inFlight = new ArrayDeque<>();
            for (int i = 0; i < requests; i++) {
                inFlight.add(acquire(store, i));
                if (inFlight.size() > overlap) {
                    assertThat(inFlight.poll().complete(RESPONSE)).isTrue();
                }
            }
            for (Reservation r : inFlight) {
                assertThat(r.complete(RESPONSE)).isTrue();
            }
        });

        assertThat(counters.hotShare()).as("HOT share of %s", counters).isGreaterThanOrEqualTo(0.8);
    }

    @Test
    void theMeasureTellsAnUpdateOfTheIndexedExpiryApart() throws Exception {
        // The same completion moving expires_at, as the store did while the ttl counted from
        // completion: no HOT update is possible, so the counters above really tell the two apart.
        int cycles = 200;

        Counters counters = updatesOnAFreshTable("hot-control", cycles, (store, pool) -> {
            for (int i = 0; i < cycles; i++) {
                Reservation r = acquire(store, i);
                try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(
                        "UPDATE idempotency_keys SET state = 'COMPLETED', locked_until = NULL, response_status = 201, "
                                + "response_body = ?, expires_at = expires_at + INTERVAL '1 second' "
                                + "WHERE key = ? AND tenant_id = ? AND method = ? AND path = ? AND owner_token = ?")) {
                    ps.setBytes(1, RESPONSE.body());
                    ps.setString(2, r.key().key());
                    ps.setString(3, r.key().tenant());
                    ps.setString(4, r.key().method());
                    ps.setString(5, r.key().path());
                    ps.setString(6, r.ownerToken());
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
            }
        });

        assertThat(counters.hotShare()).as("HOT share of %s", counters).isLessThan(0.2);
    }

    private static Reservation acquire(JdbcStore store, int i) {
        ReserveResult result = store.reserve(new RecordKey("tenant-hot", "POST", "/orders", "hot-key-" + i),
                "f".repeat(64), NOW, LEASE, TTL);
        assertThat(result).isInstanceOf(ReserveResult.Acquired.class);
        return ((ReserveResult.Acquired) result).reservation();
    }

    @FunctionalInterface
    private interface Work {
        void run(JdbcStore store, HikariDataSource pool) throws Exception;
    }

    /** Updates and HOT updates of this schema's table while {@code work} ran. */
    private record Counters(long updates, long hotUpdates) {
        double hotShare() {
            return updates == 0 ? 0 : (double) hotUpdates / updates;
        }
    }

    /**
     * Runs {@code work} against a store on a fresh table (own schema, pool of one) created by
     * {@code createTableIfMissing}, and counts the table's updates while it ran; exactly
     * {@code expectedUpdates} must have happened.
     */
    private static Counters updatesOnAFreshTable(String poolName, int expectedUpdates, Work work) throws Exception {
        try (TestDatabase db = TestDatabase.postgresDatabase()) {
            HikariDataSource pool = db.pool(poolName, 1);
            JdbcStore store = JdbcStore.create(pool);
            store.createTableIfMissing();
            Counters before = read(pool);
            work.run(store, pool);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                Counters now = read(pool);
                Counters delta = new Counters(now.updates - before.updates, now.hotUpdates - before.hotUpdates);
                if (delta.updates >= expectedUpdates || System.nanoTime() > deadline) {
                    log.info("{} of {} updates on {}.idempotency_keys were HOT", delta.hotUpdates, delta.updates,
                            db.name);
                    assertThat(delta.updates).as("updates counted").isEqualTo(expectedUpdates);
                    return delta;
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * Asks the pool's one backend to flush its pending statistics, then reads the counters in a
     * later transaction (a transaction keeps the statistics snapshot it first read).
     */
    private static Counters read(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            try (Statement s = c.createStatement()) {
                if (c.getMetaData().getDatabaseMajorVersion() >= 15) {
                    s.execute("SELECT pg_stat_force_next_flush()");
                }
                s.execute("SELECT pg_stat_clear_snapshot()");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                    + "WHERE schemaname = current_schema() AND relname = 'idempotency_keys'")) {
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? new Counters(rs.getLong(1), rs.getLong(2)) : new Counters(0, 0);
                }
            }
        }
    }
}
