package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlReserve;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code asynchronousReservationCommit(true)}: the reserve mode's reservation commits without
 * waiting for its WAL flush, and nothing else changes.
 *
 * <p>How the test sees a WAL flush wait: the pool's one connection gets {@code commit_delay =
 * 100 ms} and {@code commit_siblings = 0} (superuser settings), so every commit of that session
 * that flushes WAL itself first sleeps 100 ms; a commit with {@code synchronous_commit = off}
 * flushes nothing and does not sleep. Another session's flush may carry a synchronous commit of
 * ours (then it does not sleep either), hence counts rather than "every", and a skip when the
 * synchronous control calls do not show the delay.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresAsynchronousReservationCommitTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(24);
    private static final String FP = "a".repeat(64);
    private static final long FLUSH_DELAY_MILLIS = 100;
    private static final int CALLS = 12;
    private static final StoredResponse RESPONSE = new StoredResponse(201, "application/json", Map.of(),
            "{}".getBytes(StandardCharsets.UTF_8));

    private TestDatabase db;
    private HikariDataSource single;

    @BeforeAll
    void open() {
        db = TestDatabase.postgres();
        single = db.pool("async-commit", 1);
        JdbcStore.create(single).createTableIfMissing();
        db.execute("CREATE TABLE business_orders (order_key TEXT PRIMARY KEY)");
    }

    @AfterAll
    void close() {
        db.close();
    }

    private static RecordKey newKey() {
        return new RecordKey("tenant-1", "POST", "/orders", "async-" + UUID.randomUUID());
    }

    @Test
    void onlyPostgresOffersIt() {
        DataSource unused = single;
        for (SQLDialect dialect : List.of(SQLDialect.H2, SQLDialect.MARIADB, SQLDialect.MYSQL)) {
            assertThatThrownBy(() -> JdbcStore.builder(unused).dialect(dialect).asynchronousReservationCommit(true)
                    .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs PostgreSQL");
            assertThat(JdbcStore.builder(unused).dialect(dialect).build().asynchronousReservationCommit()).isFalse();
        }
        assertThat(JdbcStore.builder(unused).dialect(SQLDialect.POSTGRES).asynchronousReservationCommit(true).build()
                .asynchronousReservationCommit()).isTrue();
    }

    @Test
    void theReservationSkipsTheFlushWaitAndTheCompletionDoesNot() throws Exception {
        try (Connection c = single.getConnection()) {
            assumeTrue(AbstractAtomicModeTest.query(c, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user")
                    .equals("true"), "commit_delay is a superuser setting");
            assumeTrue(AbstractAtomicModeTest.query(c, "SHOW fsync").equals("on"), "commit_delay needs fsync");
            assumeTrue(AbstractAtomicModeTest.query(c, "SHOW synchronous_commit").equals("on"));
            AbstractAtomicModeTest.query(c, "SELECT set_config('commit_delay', '" + FLUSH_DELAY_MILLIS * 1000 + "', false),"
                    + " set_config('commit_siblings', '0', false)");
        }
        try {
            JdbcStore synchronous = JdbcStore.create(single);
            JdbcStore asynchronous = JdbcStore.builder(single).asynchronousReservationCommit(true).build();

            List<Long> syncReserve = new ArrayList<>();
            List<Long> asyncReserve = new ArrayList<>();
            List<Long> asyncComplete = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                Reservation sync = timed(syncReserve, () -> acquire(synchronous));
                sync.complete(RESPONSE);
                Reservation async = timed(asyncReserve, () -> acquire(asynchronous));
                timed(asyncComplete, () -> async.complete(RESPONSE));
            }

            // The control: with the delay in force, our own synchronous commits wait for it.
            assumeTrue(slow(syncReserve) >= 2, "other sessions kept flushing this session's commits, ms: "
                    + syncReserve);
            assertThat(slow(asyncReserve)).as("asynchronous reservations that waited, ms: " + asyncReserve
                    + " (synchronous: " + syncReserve + ")").isLessThanOrEqualTo(1);
            assertThat(slow(asyncComplete)).as("completions after an asynchronous reservation that waited, ms: "
                    + asyncComplete).isGreaterThanOrEqualTo(1);
        } finally {
            try (Connection c = single.getConnection()) {
                AbstractAtomicModeTest.query(c, "SELECT set_config('commit_delay', '0', false),"
                        + " set_config('commit_siblings', '5', false)");
            }
        }
    }

    @Test
    void theReservationStatementTurnsSynchronousCommitOffForItsTransactionWhenItWrites() throws SQLException {
        try (Connection c = single.getConnection()) {
            JdbcSession sql = AbstractAtomicModeTest.session(c, SQLDialect.POSTGRES);
            c.setAutoCommit(false);
            try {
                Instant now = Instant.now();
                NewRow row = new NewRow(newKey(), FP, Records.IN_FLIGHT, "token-1", now.plus(LEASE), null,
                        now.plus(TTL), now);
                assertThat(AbstractAtomicModeTest.reserve(sql, row, now, false).won()).isTrue();
                assertThat(AbstractAtomicModeTest.query(c, "SHOW synchronous_commit")).isEqualTo("on");
                c.rollback();

                assertThat(AbstractAtomicModeTest.reserve(sql, row, now, true).won()).isTrue();
                assertThat(AbstractAtomicModeTest.query(c, "SHOW synchronous_commit")).as("won: writes").isEqualTo("off");
                c.commit();

                SqlReserve.Found held = AbstractAtomicModeTest.reserve(sql, row, now, true);
                assertThat(held.won()).as("held by the row just committed").isFalse();
                assertThat(held.record()).as("the live record in the way").isNotNull();
                assertThat(AbstractAtomicModeTest.query(c, "SHOW synchronous_commit")).as("lost: writes nothing")
                        .isEqualTo("on");
                c.rollback();
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    @Test
    void theSettingEndsWithTheReservationsTransaction() throws SQLException {
        JdbcStore asynchronous = JdbcStore.builder(single).asynchronousReservationCommit(true).build();
        Reservation r = acquire(asynchronous);
        try (Connection c = single.getConnection()) {
            assertThat(AbstractAtomicModeTest.query(c, "SHOW synchronous_commit")).isEqualTo("on");
        }
        assertThat(r.complete(RESPONSE)).isTrue();
        assertThat(asynchronous.reserve(r.key(), FP, Instant.now(), LEASE, TTL))
                .isInstanceOf(ReserveResult.Existing.class);
    }

    @Test
    void theAtomicModeCommitsSynchronouslyWithTheOptionOn() throws Exception {
        JdbcStore asynchronous = JdbcStore.builder(single).asynchronousReservationCommit(true).build();
        try (IdempotencyEngine engine = new IdempotencyEngine(asynchronous,
                IdempotencyConfig.builder().mode(Mode.ATOMIC).build())) {
            String key = "async-" + UUID.randomUUID();
            Execution execution = ((Decision.Proceed) engine.before(Requests.post("/orders", key, "{}"))).execution();
            Connection tx = execution.unwrap(Connection.class).orElseThrow();
            assertThat(AbstractAtomicModeTest.query(tx, "SHOW synchronous_commit")).isEqualTo("on");
            execution.finish(Requests.created("{}"));
        }
    }

    private static Reservation acquire(JdbcStore store) {
        ReserveResult result = store.reserve(newKey(), FP, Instant.now(), LEASE, TTL);
        assertThat(result).isInstanceOf(ReserveResult.Acquired.class);
        return ((ReserveResult.Acquired) result).reservation();
    }

    private static <T> T timed(List<Long> millis, Supplier<T> call) {
        long started = System.nanoTime();
        T result = call.get();
        millis.add((System.nanoTime() - started) / 1_000_000);
        return result;
    }

    /** Calls that took at least the flush delay (less a little for timer granularity). */
    private static long slow(List<Long> millis) {
        return millis.stream().filter(m -> m >= FLUSH_DELAY_MILLIS - 5).count();
    }
}
