package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tenant isolation in depth: the shipped policy, with the store setting the tenant per
 * transaction, seen from a plain application role (not a superuser, not the table's owner).
 */
class PostgresRowLevelSecurityTest {

    private static final Instant NOW = Instant.parse("2031-06-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    private static TestDatabase db;
    private static String appRole;
    private static JdbcStore owner;
    private static JdbcStore app;

    @BeforeAll
    static void createSchemaPolicyAndRole() {
        db = TestDatabase.postgres();
        owner = JdbcStore.builder(db.pool("rls-owner", 2)).rowLevelSecurity(true).build();
        owner.createTableIfMissing();
        appRole = "idem_app_" + db.name.substring(5);
        try {
            db.adminExecute("CREATE ROLE " + appRole + " LOGIN NOSUPERUSER NOBYPASSRLS");
        } catch (IllegalStateException e) {
            db.close();
            assumeTrue(false, "the test user may not create roles: " + e.getCause().getMessage());
        }
        db.adminExecute("GRANT USAGE ON SCHEMA " + db.name + " TO " + appRole);
        db.adminExecute("GRANT SELECT, INSERT, UPDATE, DELETE ON " + db.name + ".idempotency_keys TO " + appRole);
        app = JdbcStore.builder(db.pool("rls-app", 4, db.url(), appRole, "")).rowLevelSecurity(true).build();
    }

    @AfterAll
    static void dropSchemaAndRole() {
        if (db != null) {
            db.close();
            if (appRole != null) {
                db.adminExecute("DROP ROLE IF EXISTS " + appRole);
            }
        }
    }

    private static RecordKey key(String tenant, String key) {
        return new RecordKey(tenant, "POST", "/payments", key);
    }

    private static StoredResponse body(String text) {
        return new StoredResponse(201, "application/json", Map.of(), text.getBytes(StandardCharsets.UTF_8));
    }

    private static Reservation acquire(RecordKey key) {
        ReserveResult result = app.reserve(key, "f".repeat(64), NOW, LEASE, TTL);
        assertThat(result).isInstanceOf(ReserveResult.Acquired.class);
        return ((ReserveResult.Acquired) result).reservation();
    }

    @Test
    void theStoreWorksUnderThePolicyAndKeepsTenantsApart() {
        String shared = "same-key-" + UUID.randomUUID();
        RecordKey a = key("tenant-a", shared);
        RecordKey b = key("tenant-b", shared);
        acquire(a).complete(body("{\"for\":\"a\"}"));
        Reservation bReservation = acquire(b);
        assertThat(bReservation.renew(NOW.plusSeconds(1), LEASE)).isTrue();
        bReservation.complete(body("{\"for\":\"b\"}"));

        IdempotencyRecord seenByA = ((ReserveResult.Existing) app.reserve(a, "f".repeat(64), NOW, LEASE, TTL)).record();
        assertThat(new String(seenByA.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"for\":\"a\"}");
        assertThat(new String(app.find(b, NOW).orElseThrow().response().body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"for\":\"b\"}");
        Reservation released = acquire(key("tenant-a", "released-" + UUID.randomUUID()));
        assertThat(released.release()).isTrue();
        assertThat(app.insertCompleted(key("tenant-c", shared), "f".repeat(64), body("c"), NOW, TTL)).isTrue();
    }

    @Test
    void tenantACannotReadOrOverwriteTenantBsRecordEvenWithTheSameKey() throws SQLException {
        String shared = "victim-" + UUID.randomUUID();
        acquire(key("tenant-a", shared)).complete(body("a's order"));
        acquire(key("tenant-b", shared)).complete(body("b's order"));

        try (Connection c = DriverManager.getConnection(db.url(), appRole, "")) {
            c.setAutoCommit(false);
            setTenant(c, "tenant-a");
            // Statements that forget the tenant, as a bug would: the policy adds it back.
            assertThat(tenantsOf(c, "SELECT tenant_id FROM idempotency_keys WHERE key = ?", shared))
                    .containsExactly("tenant-a");
            assertThat(update(c, "UPDATE idempotency_keys SET response_body = 'x'::bytea WHERE key = ?", shared))
                    .as("rows overwritten").isEqualTo(1);
            assertThat(update(c, "UPDATE idempotency_keys SET response_body = 'x'::bytea WHERE key = ? "
                    + "AND tenant_id = 'tenant-b'", shared)).isZero();
            assertThat(update(c, "DELETE FROM idempotency_keys WHERE key = ? AND tenant_id = 'tenant-b'", shared))
                    .isZero();
            assertThatThrownBy(() -> update(c, "INSERT INTO idempotency_keys (key, tenant_id, method, path, "
                    + "request_hash, state, owner_token, format_version, expires_at) VALUES (?, 'tenant-b', 'POST', "
                    + "'/payments', 'h', 'IN_FLIGHT', 'evil', 1, now() + interval '1 hour') "
                    + "ON CONFLICT (key, tenant_id, caller, method, path) DO UPDATE SET owner_token = 'evil'", shared))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            c.rollback();
        }

        IdempotencyRecord b = owner.find(key("tenant-b", shared), NOW).orElseThrow();
        assertThat(new String(b.response().body(), StandardCharsets.UTF_8)).isEqualTo("b's order");
    }

    @Test
    void withoutATenantSetNothingIsVisible() throws SQLException {
        String shared = "unset-" + UUID.randomUUID();
        acquire(key("tenant-a", shared)).complete(body("a"));
        try (Connection c = DriverManager.getConnection(db.url(), appRole, "")) {
            assertThat(tenantsOf(c, "SELECT tenant_id FROM idempotency_keys WHERE key = ?", shared)).isEmpty();
        }
    }

    @Test
    void purgingCrossesTenantsSoItNeedsARoleThatBypassesThePolicy() {
        RecordKey expiring = key("tenant-a", "expiring-" + UUID.randomUUID());
        app.insertCompleted(expiring, "f".repeat(64), body("old"), NOW, Duration.ofSeconds(1));
        Instant later = NOW.plusSeconds(5);

        assertThat(app.purgeExpired(later, 1000)).as("the application role sees no tenant's rows").isZero();
        assertThat(owner.purgeExpired(later, 1000)).isGreaterThanOrEqualTo(1);
        assertThat(owner.find(expiring, NOW)).isEmpty();
    }

    private static void setTenant(Connection c, String tenant) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT set_config('idempotency.tenant_id', ?, true)")) {
            s.setString(1, tenant);
            s.execute();
        }
    }

    private static List<String> tenantsOf(Connection c, String sql, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, key);
            List<String> tenants = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    tenants.add(rs.getString(1));
                }
            }
            return tenants;
        }
    }

    private static int update(Connection c, String sql, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, key);
            return s.executeUpdate();
        }
    }
}
