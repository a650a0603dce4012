package dev.idempotency.quarkus;

import dev.idempotency.testkit.IdempotentMethodChecks;
import dev.idempotency.testkit.IdempotentMethodChecks.Charge;
import dev.idempotency.testkit.IdempotentMethodChecks.Receipt;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link IdempotentMethod}s of {@link QuarkusIdempotentMethodTest} (test-kit's suite) and, with
 * {@link #ship}, of {@link QuarkusIdempotentMethodAtomicTest}.
 */
@ApplicationScoped
public class Payments implements IdempotentMethodChecks.Payments {

    private final AtomicInteger runs = new AtomicInteger();

    @Inject
    EntityManager entities;

    @Inject
    AgroalDataSource dataSource;

    @Override
    public int runs() {
        return runs.get();
    }

    @Override
    @IdempotentMethod(scope = "payments", key = "charge.id")
    public Receipt charge(Charge charge, long delayMs) throws InterruptedException {
        int run = runs.incrementAndGet();
        Thread.sleep(delayMs);
        return IdempotentMethodChecks.receipt(charge, run);
    }

    @Override
    @IdempotentMethod(scope = "payments.split", key = "charge.id", input = "charge")
    public List<Receipt> split(Charge charge, int parts, String note) {
        return IdempotentMethodChecks.split(charge, parts, runs.incrementAndGet());
    }

    @Override
    @IdempotentMethod(scope = "payments.declined", key = "charge.id")
    public Receipt decline(Charge charge, boolean fail) {
        int run = runs.incrementAndGet();
        if (fail) {
            throw new IllegalStateException("declined");
        }
        return IdempotentMethodChecks.receipt(charge, run);
    }

    @Override
    @IdempotentMethod(scope = "payments.later", key = "id")
    public CompletionStage<String> later(String id) {
        runs.incrementAndGet();
        return CompletableFuture.completedFuture(id);
    }

    /**
     * Writes a {@link Shipment} with Hibernate ORM and an audit line with JDBC, in its
     * {@code @Transactional} (REQUIRED) transaction: in the atomic mode, the call's.
     */
    @IdempotentMethod(scope = "shipments.method", key = "code")
    @Transactional
    public Receipt ship(String code, long delayMs, boolean fail) throws SQLException, InterruptedException {
        int run = runs.incrementAndGet();
        Shipment shipment = new Shipment();
        shipment.code = code;
        entities.persist(shipment);
        try (Connection c = dataSource.getConnection();
             PreparedStatement audit = c.prepareStatement("INSERT INTO shipment_audit (code) VALUES (?)")) {
            audit.setString(1, code);
            audit.executeUpdate();
        }
        Thread.sleep(delayMs);
        if (fail) {
            throw new IllegalStateException("failed after writing");
        }
        return new Receipt(code, 0, run);
    }
}
