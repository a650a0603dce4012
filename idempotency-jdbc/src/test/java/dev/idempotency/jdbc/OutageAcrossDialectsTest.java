package dev.idempotency.jdbc;

import static dev.idempotency.jdbc.PostgresOutageTest.assertUnavailable;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StoredResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

/**
 * The two kinds of outage on every dialect: a missing table (NOT_PROVISIONED) and a database that
 * refuses connections (UNREACHABLE, within the pool's connection timeout).
 */
class OutageAcrossDialectsTest {

    private static final Instant NOW = Instant.parse("2031-05-01T12:00:00Z");
    private static final RecordKey KEY = new RecordKey("t", "POST", "/orders", "missing-table");
    private static final StoredResponse RESPONSE = new StoredResponse(200, null, Map.of(), new byte[0]);

    @Test
    void aMissingTableIsNotProvisionedOnPostgres() {
        try (TestDatabase db = TestDatabase.postgres()) {
            assertEveryCallIsNotProvisioned(JdbcStore.create(db.pool("missing", 2)));
        }
    }

    @Test
    void aMissingSchemaIsNotProvisionedOnPostgres() {
        try (TestDatabase db = TestDatabase.postgres()) {
            assertEveryCallIsNotProvisioned(JdbcStore.builder(db.pool("missing", 2))
                    .tableName("no_such_schema.idempotency_keys").build());
        }
    }

    @Test
    void aMissingTableIsNotProvisionedOnMariaDb() {
        try (TestDatabase db = TestDatabase.mariadb()) {
            assertEveryCallIsNotProvisioned(JdbcStore.create(db.pool("missing", 2)));
        }
    }

    @Test
    void aMissingTableIsNotProvisionedOnH2() {
        try (TestDatabase db = TestDatabase.h2()) {
            assertEveryCallIsNotProvisioned(JdbcStore.create(db.pool("missing", 2)));
        }
    }

    @Test
    void aRefusedConnectionIsUnreachableWithinTheTimeoutOnPostgres() throws IOException {
        try (TestDatabase db = TestDatabase.postgres()) {
            assertRefusedQuickly(db, "jdbc:postgresql://127.0.0.1:" + closedPort() + "/test", SQLDialect.POSTGRES);
        }
    }

    @Test
    void aRefusedConnectionIsUnreachableWithinTheTimeoutOnMariaDb() throws IOException {
        try (TestDatabase db = TestDatabase.mariadb()) {
            assertRefusedQuickly(db, "jdbc:mariadb://127.0.0.1:" + closedPort() + "/test", SQLDialect.MARIADB);
        }
    }

    @Test
    void detectingTheDialectOfAnUnreachableDatabaseIsUnreachable() throws IOException {
        try (TestDatabase db = TestDatabase.postgres()) {
            HikariDataSource pool = db.pool("refused", 2, "jdbc:postgresql://127.0.0.1:" + closedPort() + "/test",
                    "postgres", "");
            assertUnavailable(Reason.UNREACHABLE, () -> JdbcStore.create(pool));
        }
    }

    private static void assertEveryCallIsNotProvisioned(JdbcStore store) {
        assertUnavailable(Reason.NOT_PROVISIONED, () -> store.reserve(KEY, "f", NOW, Duration.ofSeconds(1),
                Duration.ofSeconds(2)));
        assertUnavailable(Reason.NOT_PROVISIONED, () -> store.find(KEY, NOW));
        assertUnavailable(Reason.NOT_PROVISIONED, () -> store.insertCompleted(KEY, "f", RESPONSE, NOW,
                Duration.ofSeconds(2)));
        assertUnavailable(Reason.NOT_PROVISIONED, () -> store.purgeExpired(NOW, 10));
    }

    private static void assertRefusedQuickly(TestDatabase db, String url, SQLDialect dialect) {
        HikariDataSource pool = db.pool("refused", 2, url, db.server.user(), db.server.password());
        JdbcStore store = JdbcStore.builder(pool).dialect(dialect).build();
        long started = System.nanoTime();
        assertUnavailable(Reason.UNREACHABLE, () -> store.reserve(KEY, "f", NOW, Duration.ofSeconds(1),
                Duration.ofSeconds(2)));
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertThat(millis).as("pool connectionTimeout is 1.5 s").isLessThan(5_000);
    }

    /** A loopback port nothing listens on. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
