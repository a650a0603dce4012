package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.testkit.internal.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The truthful limit of the reserve mode, and why the atomic mode has none here: the handler's
 * COMMIT reaches PostgreSQL and lands, but its acknowledgement is lost and the connection cut (a
 * TCP proxy in front of the database drops the reply, then goes down).
 *
 * <p>Reserve mode: the handler sees its commit fail, the engine's release cannot reach the
 * database either, the key stays in flight until the lease lapses — and the client's retry then
 * runs the operation a second time: two orders for one key. Atomic mode: the order and the stored
 * response are one COMMIT, so the retry finds the replay and the order exists once.
 */
class PostgresLostCommitReplyTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final String BODY = "{\"item\":\"book\"}";

    private static TestDatabase db;
    private static HikariDataSource direct;

    @BeforeAll
    static void createSchema() {
        db = TestDatabase.postgres();
        direct = db.pool("lost-reply-direct", 2);
        JdbcStore.create(direct).createTableIfMissing();
        db.execute("CREATE TABLE orders (id serial PRIMARY KEY, idempotency_key text NOT NULL)");
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @Test
    void reserveModeRunsTheOperationAgainWhenTheHandlersCommitLandedButItsReplyWasLost() throws Exception {
        try (TcpProxy proxy = db.proxy()) {
            HikariDataSource app = db.pool("lost-reply-app", 2, db.urlThrough(proxy), db.server.user(),
                    db.server.password());
            JdbcStore store = JdbcStore.builder(db.pool("lost-reply-store", 2, db.urlThrough(proxy), db.server.user(),
                    db.server.password())).dialect(SQLDialect.POSTGRES).build();
            String key = "lost-reply-" + UUID.randomUUID();
            try (IdempotencyEngine engine = engine(store, Mode.RESERVE)) {
                Execution first = proceed(engine.before(Requests.post("/orders", key, BODY)));
                CompletableFuture<Void> handler = CompletableFuture.runAsync(() -> {
                    try (Connection c = app.getConnection()) {
                        c.setAutoCommit(false);
                        insertOrder(c, key);
                        proxy.dropReplies(true);
                        c.commit(); // lands; its acknowledgement never comes back
                        first.finish(Requests.created("{\"order\":1}"));
                    } catch (SQLException | RuntimeException e) {
                        first.fail(e); // the release goes through the same cut path and fails
                    }
                });
                await().atMost(10, TimeUnit.SECONDS).until(() -> orders(key) == 1);
                proxy.stop();
                handler.get(30, TimeUnit.SECONDS);
                proxy.dropReplies(false);
                proxy.start();

                Decision.Respond retryAtOnce = respond(engine.before(Requests.post("/orders", key, BODY)));
                assertThat(retryAtOnce.reply().status()).as("the key is still in flight").isEqualTo(409);

                Execution second = await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
                        .until(() -> engine.before(Requests.post("/orders", key, BODY)),
                                decision -> decision instanceof Decision.Proceed)
                        instanceof Decision.Proceed proceed ? proceed.execution() : null;
                try (Connection c = app.getConnection()) {
                    insertOrder(c, key);
                }
                second.finish(Requests.created("{\"order\":2}"));

                assertThat(orders(key)).as("once the lease lapsed, the retry ran the operation again").isEqualTo(2);
            }
        }
    }

    @Test
    void atomicModeAppliesTheOperationOnceWhenTheCommitLandedButItsReplyWasLost() throws Exception {
        try (TcpProxy proxy = db.proxy()) {
            JdbcStore store = JdbcStore.builder(db.pool("lost-reply-atomic", 2, db.urlThrough(proxy), db.server.user(),
                    db.server.password())).dialect(SQLDialect.POSTGRES).build();
            String key = "lost-reply-atomic-" + UUID.randomUUID();
            try (IdempotencyEngine engine = engine(store, Mode.ATOMIC)) {
                Execution first = proceed(engine.before(Requests.post("/orders", key, BODY)));
                insertOrder(first.unwrap(Connection.class).orElseThrow(), key);
                proxy.dropReplies(true);
                CompletableFuture<Optional<HttpReply>> finished = CompletableFuture.supplyAsync(
                        () -> first.finish(Requests.created("{\"order\":1}")));
                await().atMost(10, TimeUnit.SECONDS).until(() -> orders(key) == 1);
                proxy.stop();
                HttpReply lost = finished.get(30, TimeUnit.SECONDS).orElseThrow();

                assertThat(lost.status()).isEqualTo(503);
                assertThat(new String(lost.body(), StandardCharsets.UTF_8))
                        .as("the outcome is unknown, and said so").contains("may or may not have been applied");
            }
            try (IdempotencyEngine other = engine(JdbcStore.create(direct), Mode.ATOMIC)) {
                Decision.Respond retry = respond(other.before(Requests.post("/orders", key, BODY)));
                assertThat(retry.isReplay()).as("the retry replays the committed response").isTrue();
                assertThat(retry.reply().status()).isEqualTo(201);
            }
            assertThat(orders(key)).as("the order exists once").isEqualTo(1);
        }
    }

    private static IdempotencyEngine engine(JdbcStore store, Mode mode) {
        return new IdempotencyEngine(store, IdempotencyConfig.builder().mode(mode).lease(LEASE).renewLease(false)
                .build());
    }


    private static void insertOrder(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (idempotency_key) VALUES (?)")) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
    }

    private static int orders(String key) throws SQLException {
        try (Connection c = direct.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM orders WHERE idempotency_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static Execution proceed(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        return ((Decision.Proceed) decision).execution();
    }

    private static Decision.Respond respond(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        return (Decision.Respond) decision;
    }
}
