package dev.idempotency.micronaut;

import dev.idempotency.testkit.IdempotentMethodChecks;
import dev.idempotency.testkit.IdempotentMethodChecks.Charge;
import dev.idempotency.testkit.IdempotentMethodChecks.Receipt;
import io.micronaut.serde.annotation.SerdeImport;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link IdempotentMethod}s of {@link MicronautIdempotentMethodTest} (test-kit's suite) and
 * {@link MicronautIdempotentMethodOptimisticTest}; the suite's records made serializable for
 * Micronaut Serialization with {@code @SerdeImport}.
 */
@Singleton
@SerdeImport(Charge.class)
@SerdeImport(Receipt.class)
public class MethodPayments implements IdempotentMethodChecks.Payments {

    private final AtomicInteger runs = new AtomicInteger();

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
}
