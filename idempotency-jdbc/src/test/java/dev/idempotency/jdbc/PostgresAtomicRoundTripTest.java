package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.StoredResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Round trips of the atomic mode on PostgreSQL, counted on the wire ({@link RoundTripCountingProxy}):
 * the transaction's set-up, the reservation and the restored lock wait are one round trip, and the
 * completing UPDATE and the COMMIT another, so an executed request costs three — reserve, the
 * handler's statement, complete + commit — also now that the won reservation takes the in-flight
 * advisory locks (it cost four while the COMMIT went on its own); a take-over of an expired record
 * costs its reservation one more. A duplicate of an uncommitted request costs
 * three: the reservation that runs out of lock wait, the rollback, and the probe of {@code pg_locks}
 * that tells 409 from 422.
 *
 * <p>The store runs on one connection that is never closed in between (no pool), so nothing but
 * the store's and the handler's own statements crosses the proxy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresAtomicRoundTripTest {

    private static final String ORDER = "{\"sku\":1}";

    private TestDatabase db;
    private ProxiedPostgres proxied;
    private Connection connection;
    private DataSource single;

    @BeforeAll
    void open() throws Exception {
        db = TestDatabase.postgres();
        proxied = new ProxiedPostgres(db);
        JdbcStore.create(db.pool("round-trips-setup", 1)).createTableIfMissing();
        db.execute("CREATE TABLE business_orders (order_key TEXT PRIMARY KEY, item TEXT NOT NULL)");
        connection = proxied.connection();
        single = proxied.dataSource();
    }

    @AfterAll
    void close() throws Exception {
        if (proxied != null) {
            proxied.close();
        }
        db.close();
    }

    private IdempotencyEngine engine(JdbcStore store) {
        return new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC)
                .inFlightWait(Duration.ZERO).build());
    }

    /** One executed request: reserve, one INSERT of the handler, finish with a stored response. */
    private long executedRequest(IdempotencyEngine engine, String key) throws SQLException {
        long before = proxied.roundTrips();
        Execution execution = ((Decision.Proceed) engine.before(Requests.post("/orders", key, ORDER))).execution();
        AbstractAtomicModeTest.writeOrder(execution, key);
        execution.finish(Requests.created("{\"order\":1}"));
        return proxied.roundTrips() - before;
    }

    @Test
    void anExecutedRequestCostsThreeRoundTripsAndAReplayTwo() throws Exception {
        JdbcStore store = JdbcStore.builder(single).dialect(SQLDialect.POSTGRES).build();
        try (IdempotencyEngine engine = engine(store)) {
            for (int i = 0; i < 6; i++) { // past pgJDBC's prepareThreshold: server-side prepared statements
                executedRequest(engine, "warm-" + UUID.randomUUID());
            }
            for (int i = 0; i < 3; i++) {
                String key = "rt-" + UUID.randomUUID();
                assertThat(executedRequest(engine, key))
                        .as("set-up + reservation + restore, the handler's INSERT, the completing UPDATE + COMMIT")
                        .isEqualTo(3);

                long before = proxied.roundTrips();
                Decision replay = engine.before(Requests.post("/orders", key, ORDER));
                assertThat(replay).isInstanceOf(Decision.Respond.class);
                assertThat(((Decision.Respond) replay).isReplay()).isTrue();
                assertThat(proxied.roundTrips() - before).as("set-up + reservation reading the record, ROLLBACK")
                        .isEqualTo(2);
            }

            long before = proxied.roundTrips();
            String key = "rt-" + UUID.randomUUID();
            Execution released = ((Decision.Proceed) engine.before(Requests.post("/orders", key, ORDER))).execution();
            released.finish(CapturedResponse.of(500, Map.of(), new byte[0]));
            assertThat(proxied.roundTrips() - before).as("set-up + reservation, the releasing DELETE + COMMIT")
                    .isEqualTo(2);
        }
    }

    @Test
    void aTakeOverCostsTheReservationOneMoreRoundTrip() throws Exception {
        JdbcStore store = JdbcStore.builder(single).dialect(SQLDialect.POSTGRES).build();
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        Duration lease = Duration.ofSeconds(30);
        Duration ttl = Duration.ofHours(1);
        for (int i = 0; i < 6; i++) { // past pgJDBC's prepareThreshold, for both reservation statements
            RecordKey warm = new RecordKey("default", "POST", "/orders", "warm-" + UUID.randomUUID());
            complete(store.attemptInTransaction(warm, "f".repeat(64), "o-" + i, now, lease, ttl, Duration.ZERO));
            complete(store.attemptInTransaction(warm, "f".repeat(64), "p-" + i, now.plus(ttl), lease, ttl,
                    Duration.ZERO));
        }
        RecordKey key = new RecordKey("default", "POST", "/orders", "rt-" + UUID.randomUUID());
        long before = proxied.roundTrips();
        AtomicAttempt<Reservation> fresh = store.attemptInTransaction(key, "f".repeat(64), "first", now, lease, ttl,
                Duration.ZERO);
        assertThat(proxied.roundTrips() - before).as("a fresh key: set-up + reservation + restore").isEqualTo(1);
        complete(fresh);

        before = proxied.roundTrips();
        AtomicAttempt<Reservation> takenOver = store.attemptInTransaction(key, "f".repeat(64), "second",
                now.plus(ttl), lease, ttl, Duration.ZERO);
        assertThat(proxied.roundTrips() - before)
                .as("the fresh-key statement finds an expired record; the take-over follows").isEqualTo(2);
        complete(takenOver);
        assertThat(store.find(key, now.plus(ttl)).orElseThrow().expiresAt()).as("the take-over's record")
                .isEqualTo(now.plus(ttl).plus(ttl));
    }

    private static void complete(AtomicAttempt<Reservation> attempt) {
        assertThat(attempt).isInstanceOf(AtomicAttempt.Won.class);
        Reservation won = ((AtomicAttempt.Won<Reservation>) attempt).reservation();
        assertThat(won.complete(new StoredResponse(201, "application/json", Map.of(), new byte[] {'{', '}'})))
                .isTrue();
    }

    @Test
    void aDuplicateOfAnUncommittedRequestCostsThreeRoundTripsWhateverItsBody() throws Exception {
        JdbcStore store = JdbcStore.builder(single).dialect(SQLDialect.POSTGRES).build();
        JdbcStore holderStore = JdbcStore.create(db.pool("round-trips-holder", 1)); // not through the proxy
        try (IdempotencyEngine engine = engine(store); IdempotencyEngine holderEngine = engine(holderStore)) {
            for (int i = 0; i < 6; i++) {
                executedRequest(engine, "warm-" + UUID.randomUUID());
            }
            String key = "rt-" + UUID.randomUUID();
            Execution first = ((Decision.Proceed) holderEngine.before(Requests.post("/orders", key, ORDER))).execution();
            try {
                for (int i = 0; i < 6; i++) { // past prepareThreshold for the probe too
                    long before = proxied.roundTrips();
                    Decision.Respond otherBody = (Decision.Respond) engine.before(
                            Requests.post("/orders", key, AbstractAtomicModeTest.OTHER_ORDER));
                    assertThat(AbstractAtomicModeTest.answer(otherBody)).isEqualTo(AbstractAtomicModeTest.CONFLICT);
                    assertThat(proxied.roundTrips() - before)
                            .as("set-up + reservation (lock timeout), ROLLBACK, the pg_locks probe").isEqualTo(3);

                    before = proxied.roundTrips();
                    Decision.Respond sameBody = (Decision.Respond) engine.before(Requests.post("/orders", key, ORDER));
                    assertThat(AbstractAtomicModeTest.answer(sameBody)).isEqualTo(AbstractAtomicModeTest.IN_PROGRESS);
                    assertThat(proxied.roundTrips() - before).isEqualTo(3);
                }
            } finally {
                first.finish(Requests.created("{\"order\":1}"));
            }
            long before = proxied.roundTrips();
            assertThat(((Decision.Respond) engine.before(Requests.post("/orders", key, ORDER))).isReplay()).isTrue();
            assertThat(proxied.roundTrips() - before).as("once committed: a replay as usual").isEqualTo(2);
        }
    }

    @Test
    void rowLevelSecurityAddsNoRoundTripInTheAtomicMode() throws Exception {
        JdbcStore store = JdbcStore.builder(single).dialect(SQLDialect.POSTGRES).rowLevelSecurity(true).build();
        try (IdempotencyEngine engine = engine(store)) {
            executedRequest(engine, "warm-" + UUID.randomUUID());
            assertThat(executedRequest(engine, "rt-" + UUID.randomUUID())).isEqualTo(3);
        }
    }

    @Test
    void theHandlerWaitsForLocksAsTheSessionDoesAndTheSessionKeepsItsSettings() throws Exception {
        JdbcStore store = JdbcStore.builder(single).dialect(SQLDialect.POSTGRES).build();
        AbstractAtomicModeTest.query(connection, "SELECT set_config('lock_timeout', '7s', false)");
        try (IdempotencyEngine engine = engine(store)) {
            String key = "rt-" + UUID.randomUUID();
            Execution execution = ((Decision.Proceed) engine.before(Requests.post("/orders", key, ORDER))).execution();
            Connection tx = execution.unwrap(Connection.class).orElseThrow();
            assertThat(AbstractAtomicModeTest.query(tx, "SHOW lock_timeout"))
                    .as("the reservation waited 50 ms at most; the handler gets the session's wait back").isEqualTo("7s");
            assertThat(AbstractAtomicModeTest.query(tx, "SHOW idle_in_transaction_session_timeout")).isEqualTo("30s");
            assertThat(AbstractAtomicModeTest.query(tx, "SHOW transaction_isolation")).isEqualTo("read committed");
            execution.finish(Requests.created("{\"order\":1}"));

            assertThat(AbstractAtomicModeTest.query(connection, "SHOW lock_timeout")).isEqualTo("7s");
            assertThat(AbstractAtomicModeTest.query(connection, "SHOW idle_in_transaction_session_timeout"))
                    .isEqualTo("0");
            assertThat(connection.getAutoCommit()).isTrue();
        } finally {
            AbstractAtomicModeTest.query(connection, "SELECT set_config('lock_timeout', '0', false)");
        }
    }
}
