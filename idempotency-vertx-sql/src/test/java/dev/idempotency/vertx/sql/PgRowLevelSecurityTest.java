package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import io.vertx.pgclient.PgConnectOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The shipped row-level-security policy, seen from a plain application role, with the store setting the tenant. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgRowLevelSecurityTest {

    private static final Instant NOW = Instant.parse("2031-06-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final String FP = "f".repeat(64);
    private static final StoredResponse PAID = new StoredResponse(201, "application/json", Map.of(),
            "{\"paid\":true}".getBytes(StandardCharsets.UTF_8));

    private PgTestDatabase db;
    private PgStore withTenant;
    private PgStore withoutTenant;

    @BeforeAll
    void createPolicyAndRole() {
        db = new PgTestDatabase();
        await(PgStore.builder(db.pool("rls-owner", 1)).rowLevelSecurity(true).build().createTableIfMissing());
        String role = db.createRole();
        db.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO " + role);
        withTenant = PgStore.builder(db.pool("rls-app", 2, new PgConnectOptions(PgTestDatabase.server()).setUser(role)))
                .rowLevelSecurity(true).build();
        withoutTenant = PgStore.create(db.pool("plain-app", 2,
                new PgConnectOptions(PgTestDatabase.server()).setUser(role)));
    }

    @AfterAll
    void close() {
        db.close();
    }

    @Test
    void theTenantSetPerCallIsWhatMakesTheRowVisible() {
        RecordKey key = new RecordKey("tenant-a", "POST", "/payments", "pay-1");
        AsyncReserveResult won = await(withTenant.reserve(key, FP, NOW, LEASE, TTL));
        assertThat(won).isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(await(((AsyncReserveResult.Acquired) won).reservation().complete(PAID))).isTrue();

        assertThat(await(withTenant.find(key, NOW))).hasValueSatisfying(r -> assertThat(r.response()).isEqualTo(PAID));
        assertThat(await(withoutTenant.find(key, NOW))).as("no tenant set: the policy hides every row").isEmpty();
    }

    @Test
    void theAtomicTransactionSetsTheTenantToo() {
        RecordKey key = new RecordKey("tenant-b", "POST", "/payments", "pay-2");
        AsyncReserveResult won = await(withTenant.atomic().orElseThrow().reserve(key, FP, NOW, LEASE, TTL, Duration.ZERO));
        assertThat(won).isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(await(((AsyncReserveResult.Acquired) won).reservation().complete(PAID))).isTrue();

        assertThat(await(withTenant.find(key, NOW))).hasValueSatisfying(
                r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
        assertThat(await(withoutTenant.find(key, NOW))).isEmpty();
    }
}
