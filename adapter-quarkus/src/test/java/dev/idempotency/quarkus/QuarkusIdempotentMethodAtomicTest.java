package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.testkit.IdempotentMethodChecks.Receipt;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentMethod} in the atomic mode: the interceptor begins the JDBC store's JTA transaction
 * before Narayana's {@code @Transactional} interceptor, which joins it, so the method's Hibernate ORM
 * entity, its JDBC write and the stored result commit together or roll back together. Counts are read
 * on connections of their own.
 */
@QuarkusTest
@TestProfile(QuarkusAtomicTest.Atomic.class)
@QuarkusTestResource(value = PostgresSchemaResource.class, restrictToAnnotatedClass = true)
class QuarkusIdempotentMethodAtomicTest {

    @Inject
    Payments payments;

    @Inject
    AgroalDataSource dataSource;

    @BeforeEach
    void auditTable() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS shipment_audit (code TEXT NOT NULL)");
        }
    }

    @Test
    void theMethodsWritesAndTheRecordCommitTogetherAndARepeatReplays() throws Exception {
        String code = code();
        int runs = payments.runs();
        long records = records();

        CompletableFuture<Receipt> first = CompletableFuture.supplyAsync(() -> ship(code, 1500, false));
        awaitRuns(runs + 1);
        Thread.sleep(300); // inside the pause: both writes made, nothing committed
        List<Long> meanwhile = List.of(shipments(code), audits(code), records() - records);
        Receipt shipped = first.get(20, TimeUnit.SECONDS);
        Receipt repeat = payments.ship(code, 1500, false);

        assertThat(meanwhile).as("nothing visible before the commit").containsExactly(0L, 0L, 0L);
        assertThat(shipped).isEqualTo(new Receipt(code, 0, runs + 1));
        assertThat(repeat).isEqualTo(shipped);
        assertThat(payments.runs()).isEqualTo(runs + 1);
        assertThat(List.of(shipments(code), audits(code), records() - records)).containsExactly(1L, 1L, 1L);
    }

    @Test
    void aMethodThatThrowsRollsBackItsWritesAndTheRecordAndARetryRuns() throws Exception {
        String code = code();
        int runs = payments.runs();
        long records = records();

        assertThatThrownBy(() -> payments.ship(code, 0, true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("failed after writing");

        assertThat(List.of(shipments(code), audits(code), records() - records)).containsExactly(0L, 0L, 0L);

        Receipt retry = payments.ship(code, 0, false);

        assertThat(retry.run()).isEqualTo(runs + 2);
        assertThat(List.of(shipments(code), audits(code), records() - records)).containsExactly(1L, 1L, 1L);
    }

    private Receipt ship(String code, long delayMs, boolean fail) {
        try {
            return payments.ship(code, delayMs, fail);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void awaitRuns(int runs) throws InterruptedException {
        for (int i = 0; i < 200 && payments.runs() < runs; i++) {
            Thread.sleep(25);
        }
        assertThat(payments.runs()).isGreaterThanOrEqualTo(runs);
    }

    private long shipments(String code) throws SQLException {
        return count("SELECT count(*) FROM shipment WHERE code = ?", code);
    }

    private long audits(String code) throws SQLException {
        return count("SELECT count(*) FROM shipment_audit WHERE code = ?", code);
    }

    private long records() throws SQLException {
        return count("SELECT count(*) FROM quarkus_keys WHERE path = ?", "/shipments.method");
    }

    private long count(String sql, String value) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String code() {
        return "m-" + UUID.randomUUID();
    }
}
