package dev.idempotency.quarkus;

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
import java.util.stream.IntStream;

/** The {@link IdempotentMethod}s of {@link QuarkusIdempotentMethodTest} and {@link QuarkusIdempotentMethodAtomicTest}. */
@ApplicationScoped
public class Payments {

    public record Charge(String id, String account, long cents) {}

    public record Receipt(String id, long cents, int run) {}

    static final AtomicInteger RUNS = new AtomicInteger();

    @Inject
    EntityManager entities;

    @Inject
    AgroalDataSource dataSource;

    @IdempotentMethod(scope = "payments", key = "charge.id")
    public Receipt charge(Charge charge, long delayMs) throws InterruptedException {
        int run = RUNS.incrementAndGet();
        Thread.sleep(delayMs);
        return new Receipt(charge.id(), charge.cents(), run);
    }

    /** A generic return type: a repeat decodes a list of receipts. Only {@code charge} is the input. */
    @IdempotentMethod(scope = "payments.split", key = "charge.id", input = "charge")
    public List<Receipt> split(Charge charge, int parts, String note) {
        int run = RUNS.incrementAndGet();
        return IntStream.range(0, parts).mapToObj(i -> new Receipt(charge.id() + "-" + i, charge.cents() / parts, run))
                .toList();
    }

    @IdempotentMethod(scope = "payments.declined", key = "charge.id")
    public Receipt decline(Charge charge, boolean fail) {
        int run = RUNS.incrementAndGet();
        if (fail) {
            throw new IllegalStateException("declined");
        }
        return new Receipt(charge.id(), charge.cents(), run);
    }

    @IdempotentMethod(scope = "payments.later", key = "id")
    public CompletionStage<String> later(String id) {
        RUNS.incrementAndGet();
        return CompletableFuture.completedFuture(id);
    }

    /**
     * Writes a {@link Shipment} with Hibernate ORM and an audit line with JDBC, in its
     * {@code @Transactional} (REQUIRED) transaction: in the atomic mode, the call's.
     */
    @IdempotentMethod(scope = "shipments.method", key = "code")
    @Transactional
    public Receipt ship(String code, long delayMs, boolean fail) throws SQLException, InterruptedException {
        int run = RUNS.incrementAndGet();
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
