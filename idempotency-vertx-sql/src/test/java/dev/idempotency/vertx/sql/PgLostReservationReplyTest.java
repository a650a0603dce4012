package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.testkit.internal.TcpProxy;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PgStore's reservation commits on PostgreSQL, a proxy drops the reply to its COMMIT and then cuts
 * the connection: the request is answered 503 and runs no handler. The engine releases the record
 * by the owner token it chose, so a retry on another instance runs without waiting out the lease.
 */
class PgLostReservationReplyTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration FAR_BELOW_THE_LEASE = Duration.ofSeconds(5);

    private PgTestDatabase db;
    private PgStore direct;

    @BeforeEach
    void open() {
        db = new PgTestDatabase();
        direct = PgStore.create(db.pool("lost-direct", 2));
        await(direct.createTableIfMissing());
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void theRetryOnAnotherInstanceRunsAsSoonAsTheDatabaseIsBack() throws Exception {
        PgConnectOptions server = PgTestDatabase.server();
        assumeTrue(List.of("127.0.0.1", "localhost").contains(server.getHost()), "the proxy forwards to loopback");
        IdempotencyConfig config = IdempotencyConfig.builder().lease(LEASE).renewLease(false).build();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<TcpProxy> proxied = new AtomicReference<>();
        // The reservation's transaction (BEGIN, the statement timeout, the upsert, COMMIT) goes one
        // statement at a time: once armed, everything from the client's COMMIT on is answered into the void.
        TcpProxy.Tap dropFromCommit = (data, length) -> {
            if (armed.get() && new String(data, 0, length, StandardCharsets.ISO_8859_1).contains("COMMIT")) {
                proxied.get().dropReplies(true);
            }
        };
        try (TcpProxy proxy = new TcpProxy(server.getPort(), () -> dropFromCommit);
             // One connection, opened before the replies are dropped: the reservation goes over it.
             IdempotencyEngine engine = new IdempotencyEngine(PgStore.create(db.pool("lost-proxied", 1,
                     new PgConnectOptions(server).setHost("127.0.0.1").setPort(proxy.port()))), config);
             IdempotencyEngine other = new IdempotencyEngine(direct, config)) {
            String key = "lost-" + UUID.randomUUID();
            proxied.set(proxy);
            engine.checkStorage();

            armed.set(true);
            CompletableFuture<Decision> first = engine.beforeAsync(post(key)).toCompletableFuture();
            await().atMost(10, TimeUnit.SECONDS).until(() -> "IN_FLIGHT".equals(state(key)));
            proxy.stop();
            armed.set(false);
            Decision lost = first.get(30, TimeUnit.SECONDS);
            assertThat(lost).isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) lost).reply().status()).as("the outcome is unknown: 503").isEqualTo(503);
            assertThat(state(key)).as("yet the reservation committed").isEqualTo("IN_FLIGHT");
            proxy.dropReplies(false);
            proxy.start();

            long restored = System.nanoTime();
            Decision retry = await().atMost(FAR_BELOW_THE_LEASE).pollInterval(Duration.ofMillis(50))
                    .until(() -> other.beforeAsync(post(key)).toCompletableFuture().get(10, TimeUnit.SECONDS),
                            decision -> decision instanceof Decision.Proceed);

            assertThat(Duration.ofNanos(System.nanoTime() - restored)).isLessThan(FAR_BELOW_THE_LEASE);
            assertThat(((Decision.Proceed) retry).execution().finish(CapturedResponse.of(201,
                    Map.of("Content-Type", List.of("application/json")), "{}".getBytes(StandardCharsets.UTF_8))))
                    .isEmpty();
            assertThat(state(key)).isEqualTo("COMPLETED");
        }
    }

    /** The row's state, or {@code null} when there is none. */
    private String state(String key) {
        RowSet<Row> rows = db.execute("SELECT state FROM idempotency_keys WHERE key = '" + key + "'");
        return rows.iterator().hasNext() ? rows.iterator().next().getString(0) : null;
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), "{\"item\":\"book\"}".getBytes(StandardCharsets.UTF_8));
    }
}
