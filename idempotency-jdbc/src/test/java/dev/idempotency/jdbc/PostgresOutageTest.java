package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.testkit.internal.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** PostgreSQL going away under a running store: the 503 path, and recovery without a restart. */
class PostgresOutageTest {

    private static final Instant NOW = Instant.parse("2031-05-01T12:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final String FP = "d".repeat(64);

    private static TestDatabase db;
    private static JdbcStore owner;

    @BeforeAll
    static void createSchema() {
        db = TestDatabase.postgres();
        owner = JdbcStore.create(db.pool("outage-owner", 2));
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @BeforeEach
    void tableInPlace() {
        owner.createTableIfMissing();
    }

    private static RecordKey newKey() {
        return new RecordKey("tenant-outage", "POST", "/orders", "outage-" + UUID.randomUUID());
    }

    private static IdempotencyEngine engine(JdbcStore store) {
        return new IdempotencyEngine(store, IdempotencyConfig.builder().renewLease(false).build());
    }

    @Test
    void aDroppedTableAnswers503AndServesAgainOnceRecreated() {
        JdbcStore store = JdbcStore.create(db.pool("dropped", 4));
        try (IdempotencyEngine engine = engine(store)) {
            Decision before = engine.before(Requests.post("/orders", "k-" + UUID.randomUUID(), "{}"));
            assertThat(before).isInstanceOf(Decision.Proceed.class);
            ((Decision.Proceed) before).execution().finish(Requests.created("{}"));

            db.execute("DROP TABLE idempotency_keys");

            RecordKey key = newKey();
            assertUnavailable(Reason.NOT_PROVISIONED, () -> store.reserve(key, FP, NOW, LEASE, TTL));
            assertUnavailable(Reason.NOT_PROVISIONED, () -> store.find(key, NOW));
            assertUnavailable(Reason.NOT_PROVISIONED, () -> store.insertCompleted(key, FP,
                    new StoredResponse(200, null, Map.of(), new byte[0]), NOW, TTL));
            assertUnavailable(Reason.NOT_PROVISIONED, () -> store.purgeExpired(NOW, 10));
            Decision during = engine.before(Requests.post("/orders", "k-" + UUID.randomUUID(), "{}"));
            assertStorageUnavailable(during, "not provisioned");

            store.createTableIfMissing();
            assertThat(engine.before(Requests.post("/orders", "k-" + UUID.randomUUID(), "{}")))
                    .isInstanceOf(Decision.Proceed.class);
        }
    }

    @Test
    void anUnreachableDatabaseAnswers503WithinThePoolTimeoutAndRecoversWhenItReturns() throws Exception {
        Matcher url = Pattern.compile("^jdbc:postgresql://(127\\.0\\.0\\.1|localhost)(?::(\\d+))?/(.*)$")
                .matcher(db.url());
        assumeTrue(url.matches(), "needs a PostgreSQL on this machine to put a proxy in front of");
        int port = url.group(2) == null ? 5432 : Integer.parseInt(url.group(2));
        try (TcpProxy proxy = new TcpProxy(port)) {
            String proxied = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + url.group(3);
            HikariDataSource pool = db.pool("proxied", 4, proxied, db.server.user(), db.server.password());
            JdbcStore store = JdbcStore.builder(pool).dialect(SQLDialect.POSTGRES).build();
            try (IdempotencyEngine engine = engine(store)) {
                assertThat(store.reserve(newKey(), FP, NOW, LEASE, TTL)).isInstanceOf(ReserveResult.Acquired.class);

                proxy.stop();

                long started = System.nanoTime();
                assertUnavailable(Reason.UNREACHABLE, () -> store.reserve(newKey(), FP, NOW, LEASE, TTL));
                assertUnavailable(Reason.UNREACHABLE, () -> store.find(newKey(), NOW));
                Decision during = engine.before(Requests.post("/orders", "k-" + UUID.randomUUID(), "{}"));
                long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
                assertStorageUnavailable(during, "unreachable");
                assertThat(elapsedMillis).as("three calls against a 1.5 s connection timeout").isLessThan(8_000);

                proxy.start();

                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                Decision after = null;
                while (System.nanoTime() < deadline) {
                    after = engine.before(Requests.post("/orders", "k-" + UUID.randomUUID(), "{}"));
                    if (after instanceof Decision.Proceed) {
                        break;
                    }
                    Thread.sleep(200);
                }
                assertThat(after).as("served again without a restart").isInstanceOf(Decision.Proceed.class);
            }
        }
    }

    @Test
    void terminatedBackendsCostAt503sAndAreReplacedByThePool() throws Exception {
        HikariDataSource pool = db.pool("terminated", 4);
        JdbcStore store = JdbcStore.create(pool);
        List<CompletableFuture<?>> warm = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            warm.add(CompletableFuture.runAsync(() -> store.find(newKey(), NOW)));
        }
        warm.forEach(CompletableFuture::join);

        db.adminExecute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
                + pool.getPoolName() + "'");

        int failures = 0;
        List<Object> outcomes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            try {
                outcomes.add(store.reserve(newKey(), FP, NOW, LEASE, TTL));
            } catch (StorageUnavailableException e) {
                assertThat(e.reason()).isEqualTo(Reason.UNREACHABLE);
                failures++;
                outcomes.add(e.reason());
            }
        }
        assertThat(failures).as("at most one failure per terminated connection").isLessThanOrEqualTo(4);
        assertThat(outcomes.subList(8, 12)).allSatisfy(o -> assertThat(o).isInstanceOf(ReserveResult.Acquired.class));
    }

    static void assertUnavailable(Reason reason, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageUnavailableException.class,
                e -> assertThat(e.reason()).isEqualTo(reason));
    }

    static void assertStorageUnavailable(Decision decision, String detail) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        Decision.Respond respond = (Decision.Respond) decision;
        assertThat(respond.reply().status()).isEqualTo(503);
        assertThat(respond.reply().header("Retry-After")).isNotNull();
        assertThat(new String(respond.reply().body(), StandardCharsets.UTF_8))
                .contains("idempotency_storage_unavailable").contains(detail);
    }
}
