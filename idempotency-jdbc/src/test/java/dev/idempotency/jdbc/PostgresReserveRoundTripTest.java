package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Round trips of the reserve mode's reservation on PostgreSQL, counted on the wire
 * ({@link RoundTripCountingProxy}): a fresh key, a replay and an in-flight duplicate cost one
 * statement; only a key whose row is no longer live (expired, or a lapsed lease) pays a second,
 * the take-over.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresReserveRoundTripTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    private TestDatabase db;
    private ProxiedPostgres proxied;
    private JdbcStore store;

    @BeforeAll
    void open() throws Exception {
        db = TestDatabase.postgres();
        proxied = new ProxiedPostgres(db);
        JdbcStore.create(db.pool("reserve-round-trips-setup", 1)).createTableIfMissing();
        store = JdbcStore.builder(proxied.dataSource()).dialect(SQLDialect.POSTGRES).build();
    }

    @AfterAll
    void close() throws Exception {
        if (proxied != null) {
            proxied.close();
        }
        db.close();
    }

    private static RecordKey newKey() {
        return new RecordKey("default", RecordKey.ANONYMOUS, "POST", "/orders", "rt-" + UUID.randomUUID());
    }

    private long roundTrips(Supplier<?> call) {
        long before = proxied.roundTrips();
        call.get();
        return proxied.roundTrips() - before;
    }

    @Test
    void aFreshKeyAReplayAndADuplicateCostOneStatementATakeOverTwo() {
        for (int i = 0; i < 6; i++) { // past pgJDBC's prepareThreshold: server-side prepared statements
            store.reserve(newKey(), "f".repeat(64), NOW, LEASE, TTL);
        }
        RecordKey key = newKey();
        ReserveResult[] won = new ReserveResult[1];
        assertThat(roundTrips(() -> won[0] = store.reserve(key, "f".repeat(64), NOW, LEASE, TTL))).isEqualTo(1);
        assertThat(won[0]).isInstanceOf(ReserveResult.Acquired.class);

        ReserveResult[] duplicate = new ReserveResult[1];
        assertThat(roundTrips(() -> duplicate[0] = store.reserve(key, "f".repeat(64), NOW, LEASE, TTL))).isEqualTo(1);
        assertThat(((ReserveResult.Existing) duplicate[0]).record().isCompleted()).isFalse();

        ((ReserveResult.Acquired) won[0]).reservation().complete(
                new StoredResponse(201, "application/json", Map.of("Location", List.of("/orders/1")), "{}".getBytes()));
        ReserveResult[] replay = new ReserveResult[1];
        assertThat(roundTrips(() -> replay[0] = store.reserve(key, "f".repeat(64), NOW, LEASE, TTL))).isEqualTo(1);
        assertThat(((ReserveResult.Existing) replay[0]).record().isCompleted()).isTrue();

        RecordKey lapsed = newKey();
        store.reserve(lapsed, "f".repeat(64), NOW, LEASE, TTL);
        ReserveResult[] takenOver = new ReserveResult[1];
        assertThat(roundTrips(() -> takenOver[0] = store.reserve(lapsed, "f".repeat(64), NOW.plus(LEASE), LEASE, TTL)))
                .as("the fresh-key statement finds a lapsed lease; the take-over follows").isEqualTo(2);
        assertThat(takenOver[0]).isInstanceOf(ReserveResult.Acquired.class);

        ReserveResult[] expired = new ReserveResult[1];
        assertThat(roundTrips(() -> expired[0] = store.reserve(key, "f".repeat(64), NOW.plus(TTL), LEASE, TTL)))
                .as("an expired record is taken over too").isEqualTo(2);
        assertThat(expired[0]).isInstanceOf(ReserveResult.Acquired.class);
    }
}
