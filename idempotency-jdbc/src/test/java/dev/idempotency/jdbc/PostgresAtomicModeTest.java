package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.Mode;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.sql.InFlightLocks;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The atomic mode on PostgreSQL, plus the tenant setting that row-level security adds to its
 * transaction and the advisory locks that tell a duplicate which body is in flight.
 */
class PostgresAtomicModeTest extends AbstractAtomicModeTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }

    @Test
    void aTransactionLeftIdleForALeaseIsEndedByTheServerAndFreesTheKey() throws Exception {
        List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        IdempotencyConfig config = IdempotencyConfig.builder().mode(Mode.ATOMIC).lease(Duration.ofSeconds(1))
                .listener(events::add).build();
        try (IdempotencyEngine engine = new IdempotencyEngine(store, config)) {
            String key = newKey();
            Execution lost = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(lost, key);

            Thread.sleep(1600); // the handler hangs longer than the lease, idle inside its transaction

            Execution retry = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(retry, key);
            retry.finish(Requests.created("{\"order\":2}"));
            lost.finish(Requests.created("{\"order\":1}"));

            assertThat(orders(key)).as("only the retry's write survives").isEqualTo(1);
            assertThat(events).extracting(IdempotencyEvent::outcome).containsSubsequence(
                    IdempotencyEvent.Outcome.EXECUTED_STORED, IdempotencyEvent.Outcome.PERSIST_FAILED);
            Decision.Respond replay = respond(engine.before(Requests.post("/orders", key, ORDER)));
            assertThat(new String(replay.reply().body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":2}");
        }
    }

    @Test
    void theWinnerHoldsTheThreeInFlightLocksUntilItsTransactionEnds() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution first = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            int winner = backend(first);
            assertThat(inFlightLocks(winner)).as("the two halves of the key lock and the key-and-body lock, shared")
                    .containsExactlyInAnyOrder(InFlightLocks.KEY_HIGH_CLASS + " ShareLock",
                            InFlightLocks.KEY_LOW_CLASS + " ShareLock", InFlightLocks.BODY_CLASS + " ShareLock");
            assertThat(answer(respond(engine.before(Requests.post("/orders", key, OTHER_ORDER))))).isEqualTo(CONFLICT);
            first.finish(Requests.created("{\"order\":1}"));
            assertThat(inFlightLocks(winner)).as("the commit drops them").isEmpty();

            Execution released = proceed(engine.before(Requests.post("/orders", newKey(), ORDER)));
            int releasing = backend(released);
            assertThat(inFlightLocks(releasing)).hasSize(3);
            released.finish(CapturedResponse.of(500, Map.of(), new byte[0]));
            assertThat(inFlightLocks(releasing)).as("the release's commit drops them").isEmpty();
        }
    }

    private static int backend(Execution execution) throws Exception {
        return Integer.parseInt(query(execution.unwrap(Connection.class).orElseThrow(), "SELECT pg_backend_pid()"));
    }

    /**
     * {@code "<classid> <mode>"} of each advisory lock of the two in-flight classes that backend
     * {@code pid} holds (filtered by backend: other builds on the same server take such locks too).
     */
    private List<String> inFlightLocks(int pid) throws Exception {
        List<String> locks = new ArrayList<>();
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT classid, mode FROM pg_locks WHERE locktype = 'advisory'"
                     + " AND pid = ? AND classid IN (" + InFlightLocks.KEY_HIGH_CLASS + ", "
                     + InFlightLocks.KEY_LOW_CLASS + ", " + InFlightLocks.BODY_CLASS + ")")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locks.add(rs.getLong(1) + " " + rs.getString(2));
                }
            }
        }
        return locks;
    }

    @Test
    void withRowLevelSecurityTheHandlersStatementsRunUnderTheRequestsTenant() throws Exception {
        JdbcStore rls = JdbcStore.builder(pool).rowLevelSecurity(true).build();
        IdempotencyConfig config = IdempotencyConfig.builder().mode(Mode.ATOMIC)
                .tenantResolver(request -> Optional.of("tenant-42")).build();
        try (IdempotencyEngine engine = new IdempotencyEngine(rls, config)) {
            RequestView request = RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(newKey())),
                    ORDER.getBytes(StandardCharsets.UTF_8));
            Execution execution = ((Decision.Proceed) engine.before(request)).execution();
            Connection c = execution.unwrap(Connection.class).orElseThrow();

            assertThat(query(c, "SELECT current_setting('" + JdbcStore.DEFAULT_TENANT_SETTING + "', true)"))
                    .isEqualTo("tenant-42");
            execution.finish(Requests.created("{\"order\":1}"));
        }
    }
}
