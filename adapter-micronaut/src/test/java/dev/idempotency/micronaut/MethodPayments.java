package dev.idempotency.micronaut;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/** The {@link IdempotentMethod}s of {@link MicronautIdempotentMethodTest}. */
@Singleton
public class MethodPayments {

    @Serdeable
    public record Charge(String id, String account, long cents) {}

    @Serdeable
    public record Receipt(String id, long cents, int run) {}

    static final AtomicInteger RUNS = new AtomicInteger();

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
}
