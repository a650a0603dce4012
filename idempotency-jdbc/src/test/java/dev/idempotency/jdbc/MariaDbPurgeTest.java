package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Purges of several instances on MariaDB never wait for each other, and delete each expired row once. */
class MariaDbPurgeTest {

    private static final Instant T0 = Instant.parse("2031-02-01T00:00:00Z");
    private static final Instant LATER = T0.plusSeconds(2);
    private static final StoredResponse RESPONSE = new StoredResponse(200, null, Map.of(), new byte[] {1});
    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    private TestDatabase db;

    @BeforeEach
    void createDatabase() {
        db = TestDatabase.mariadb();
    }

    @AfterEach
    void dropDatabase() {
        db.close();
    }

    private JdbcStore store(String name) {
        return JdbcStore.builder(db.pool(name, 2)).statementTimeout(STATEMENT_TIMEOUT).build();
    }

    private static void fill(JdbcStore store, int expired, int live) {
        for (int i = 0; i < expired + live; i++) {
            Duration ttl = i < expired ? Duration.ofSeconds(1) : Duration.ofHours(1);
            assertThat(store.insertCompleted(new RecordKey("t", "POST", "/o", "k-" + i), "f", RESPONSE, T0, ttl))
                    .isTrue();
        }
    }

    private Connection connection() throws SQLException {
        return DriverManager.getConnection(db.url(), "root", "");
    }

    private long rows() throws SQLException {
        try (Connection c = connection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM idempotency_keys")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aBatchWhileAnotherInstanceIsMidBatchDeletesNothingAndReturnsAtOnce() throws SQLException {
        JdbcStore first = store("purge-a");
        first.createTableIfMissing();
        fill(first, 100, 5);
        JdbcStore second = store("purge-b");

        try (Connection midBatch = connection()) {
            // What another instance's batch holds: the purge lock, and the rows its DELETE locked.
            try (PreparedStatement lock = midBatch.prepareStatement(
                    SqlCatalog.of(SqlDialect.MARIADB, "idempotency_keys").questionMarks("takePurgeLock").text())) {
                lock.setString(1, "idempotency_keys");
                try (ResultSet rs = lock.executeQuery()) {
                    assertThat(rs.next() && rs.getInt(1) == 1).isTrue();
                }
            }
            midBatch.setAutoCommit(false);
            try (Statement s = midBatch.createStatement()) {
                assertThat(s.executeUpdate("DELETE FROM idempotency_keys WHERE expires_at <= '2031-02-01 00:00:02'"
                        + " ORDER BY expires_at LIMIT 50")).isEqualTo(50);
            }
            try (Connection plain = connection(); Statement s = plain.createStatement()) {
                s.setQueryTimeout(1);
                assertThatThrownBy(() -> s.executeUpdate("DELETE FROM idempotency_keys WHERE expires_at"
                        + " <= '2031-02-01 00:00:02' ORDER BY expires_at LIMIT 50"))
                        .as("the same DELETE without the lock waits for those rows").isInstanceOf(SQLException.class);
            }

            long started = System.nanoTime();
            int purged = second.purgeExpired(LATER, 50);
            long millis = (System.nanoTime() - started) / 1_000_000;

            assertThat(purged).isZero();
            assertThat(millis).as("well under the statement timeout").isLessThan(500);
            midBatch.commit();
        } // closing the session releases its lock

        assertThat(PurgeScheduler.purge(second, LATER, 50, 10)).isEqualTo(50);
        assertThat(rows()).isEqualTo(5);
    }

    @Test
    void twoInstancesPurgingAtOnceDeleteEveryExpiredRowExactlyOnce() throws Exception {
        JdbcStore first = store("purge-a");
        first.createTableIfMissing();
        fill(first, 3_000, 50);
        JdbcStore second = store("purge-b");
        CyclicBarrier start = new CyclicBarrier(2);

        List<CompletableFuture<Integer>> runs = List.of(first, second).stream()
                .map(store -> CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return PurgeScheduler.purge(store, LATER, 50, 1_000);
                }))
                .toList();

        assertThat(runs.get(0).get() + runs.get(1).get()).isEqualTo(3_000);
        assertThat(rows()).isEqualTo(50);
        assertThat(first.purgeExpired(LATER, 50)).isZero();
    }

    /** A Galera cluster answers GET_LOCK with error 1235: the purge goes on without the lock. */
    @Test
    void withoutNamedLocksTheBatchesPurgeWithoutTheLock() throws SQLException {
        JdbcStore seed = store("seed");
        seed.createTableIfMissing();
        fill(seed, 30, 5);
        JdbcStore galera = JdbcStore.builder(failing(db.pool("galera", 2), "GET_LOCK", new AtomicInteger()))
                .statementTimeout(STATEMENT_TIMEOUT).build();

        assertThat(galera.purgeExpired(LATER, 20)).isEqualTo(20);
        assertThat(galera.purgeExpired(LATER, 20)).isEqualTo(10);
        assertThat(rows()).isEqualTo(5);
    }

    /** A session whose lock cannot be released is aborted, so no pooled connection keeps holding it. */
    @Test
    void aSessionThatCannotReleaseTheLockIsAbortedAndOthersPurgeAtOnce() throws SQLException {
        JdbcStore seed = store("seed");
        seed.createTableIfMissing();
        fill(seed, 30, 5);
        AtomicInteger aborted = new AtomicInteger();
        JdbcStore stuck = JdbcStore.builder(failing(db.pool("stuck", 1), "RELEASE_LOCK", aborted))
                .statementTimeout(STATEMENT_TIMEOUT).build();

        assertThatThrownBy(() -> stuck.purgeExpired(LATER, 10)).isInstanceOf(RuntimeException.class);
        assertThat(aborted).hasValue(1);
        assertThat(rows()).as("the batch before the failed release went").isEqualTo(25);
        assertThat(store("other").purgeExpired(LATER, 50)).as("the lock went with the aborted session").isEqualTo(20);
    }

    /**
     * {@code pool}'s connections, whose statements containing {@code sql} fail as a server without
     * named locks answers (1235), and whose aborts are counted.
     */
    private static DataSource failing(DataSource pool, String sql, AtomicInteger aborts) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, pool, args);
                    if (!(result instanceof Connection real)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") && String.valueOf(a[0]).contains(sql)) {
                                    throw new SQLException("This version of MariaDB doesn't yet support '" + sql
                                            + " in cluster'", "42000", 1235);
                                }
                                if (m.getName().equals("abort")) {
                                    aborts.incrementAndGet();
                                }
                                return invoke(m, real, a);
                            });
                });
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
