package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.internal.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A reservation whose commit landed and whose reply was lost: a TCP proxy in front of PostgreSQL
 * drops the answer to the reservation's INSERT, then cuts the connection. The client got 503 and
 * no handler ran; its retry must not be held 409 for the lease (30 s here) by a record nobody
 * runs under — on this instance or on another one.
 */
class PostgresLostReservationReplyTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration FAR_BELOW_THE_LEASE = Duration.ofSeconds(5);
    private static final String BODY = "{\"item\":\"book\"}";

    private static TestDatabase db;
    private static HikariDataSource direct;

    @BeforeAll
    static void createSchema() {
        db = TestDatabase.postgres();
        direct = db.pool("lost-reservation-direct", 2);
        JdbcStore.create(direct).createTableIfMissing();
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @Test
    void theRetryOnTheSameInstanceRunsAtOnce() throws Exception {
        try (TcpProxy proxy = db.proxy(); IdempotencyEngine engine = engine(proxiedStore(proxy))) {
            String key = "lost-reservation-" + UUID.randomUUID();
            loseTheReservationsReply(proxy, engine, key);

            long restored = System.nanoTime();
            Decision retry = engine.before(Requests.post("/orders", key, BODY));

            assertThat(retry).as("the retry runs the handler, not 409 for the lease")
                    .isInstanceOf(Decision.Proceed.class);
            assertThat(Duration.ofNanos(System.nanoTime() - restored)).isLessThan(FAR_BELOW_THE_LEASE);
            ((Decision.Proceed) retry).execution().finish(Requests.created("{\"order\":1}"));
            assertThat(state(key)).isEqualTo("COMPLETED");
        }
    }

    @Test
    void theRetryOnAnotherInstanceRunsAsSoonAsTheDatabaseIsBack() throws Exception {
        try (TcpProxy proxy = db.proxy(); IdempotencyEngine engine = engine(proxiedStore(proxy));
             IdempotencyEngine other = engine(JdbcStore.create(direct))) {
            String key = "lost-reservation-elsewhere-" + UUID.randomUUID();
            loseTheReservationsReply(proxy, engine, key);

            long restored = System.nanoTime();
            Decision retry = await().atMost(FAR_BELOW_THE_LEASE).pollInterval(Duration.ofMillis(50))
                    .until(() -> other.before(Requests.post("/orders", key, BODY)),
                            decision -> decision instanceof Decision.Proceed);

            Duration waited = Duration.ofNanos(System.nanoTime() - restored);
            assertThat(waited).as("the first instance released its reservation in the background")
                    .isLessThan(FAR_BELOW_THE_LEASE);
            ((Decision.Proceed) retry).execution().finish(Requests.created("{\"order\":1}"));
            assertThat(state(key)).isEqualTo("COMPLETED");
        }
    }

    /**
     * The reservation's INSERT commits, its reply is dropped, the connection cut: the request is
     * answered 503 with the in-flight row in place; then the database comes back.
     */
    private static void loseTheReservationsReply(TcpProxy proxy, IdempotencyEngine engine, String key)
            throws Exception {
        engine.checkStorage(); // a pooled connection is open: the next statement on it is the reservation
        proxy.dropReplies(true);
        CompletableFuture<Decision> first = CompletableFuture.supplyAsync(
                () -> engine.before(Requests.post("/orders", key, BODY)));
        await().atMost(10, TimeUnit.SECONDS).until(() -> "IN_FLIGHT".equals(state(key)));
        proxy.stop();
        Decision lost = first.get(30, TimeUnit.SECONDS);
        assertThat(lost).isInstanceOf(Decision.Respond.class);
        assertThat(((Decision.Respond) lost).reply().status()).as("the outcome is unknown: 503").isEqualTo(503);
        assertThat(state(key)).as("yet the reservation landed").isEqualTo("IN_FLIGHT");
        proxy.dropReplies(false);
        proxy.start();
    }

    private static IdempotencyEngine engine(JdbcStore store) {
        return new IdempotencyEngine(store, IdempotencyConfig.builder().lease(LEASE).renewLease(false).build());
    }

    private static JdbcStore proxiedStore(TcpProxy proxy) {
        return JdbcStore.builder(db.pool("lost-reservation-app", 2, db.urlThrough(proxy), db.server.user(),
                db.server.password())).dialect(SQLDialect.POSTGRES).build();
    }


    /** The row's state, or {@code null} when there is none. */
    private static String state(String key) throws SQLException {
        try (Connection c = direct.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT state FROM idempotency_keys WHERE key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }
}
