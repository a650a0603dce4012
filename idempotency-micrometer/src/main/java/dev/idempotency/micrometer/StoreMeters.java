package dev.idempotency.micrometer;

import dev.idempotency.core.store.StorageUnavailableException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The store decorators' meters: a timer per operation and result, and the count of executions in
 * flight — reservations won and not yet finished. The events cannot give that count: nothing is
 * told when a request proceeds, only when it has finished.
 */
final class StoreMeters {

    static final String SUCCESS = "success";
    static final String UNAVAILABLE = "unavailable";
    static final String ERROR = "error";

    private final MeterRegistry registry;
    private final Tags common;
    private final AtomicLong active = new AtomicLong();
    private final AtomicBoolean gaugeRegistered = new AtomicBoolean();

    StoreMeters(MeterRegistry registry, Tags common) {
        this.registry = registry;
        this.common = common;
    }

    /**
     * These meters, with the gauge registered: only once a store is decorated, since without one
     * nothing counts executions and a gauge stuck at 0 would look like a measurement.
     */
    StoreMeters activated() {
        if (!gaugeRegistered.compareAndSet(false, true)) {
            return this;
        }
        Gauge.builder("idempotency.executions.active", active, AtomicLong::get)
                .description("Executions in flight: reservations won and not yet completed, released or aborted")
                .tags(common)
                .strongReference(true)
                .register(registry);
        return this;
    }

    void reservationWon() {
        active.incrementAndGet();
    }

    void reservationFinished() {
        active.decrementAndGet();
    }

    /** Runs a blocking store call and records its time under {@code operation} and its result. */
    <T> T time(String operation, Supplier<T> call) {
        Timer.Sample sample = Timer.start(registry);
        try {
            T result = call.get();
            sample.stop(timer(operation, SUCCESS));
            return result;
        } catch (RuntimeException e) {
            sample.stop(timer(operation, resultOf(e)));
            throw e;
        }
    }

    /** Starts an asynchronous store call and records its time when its stage completes. */
    <T> CompletionStage<T> timeAsync(String operation, Supplier<CompletionStage<T>> call) {
        Timer.Sample sample = Timer.start(registry);
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            sample.stop(timer(operation, resultOf(e)));
            throw e;
        }
        return stage.whenComplete((result, failure) ->
                sample.stop(timer(operation, failure == null ? SUCCESS : resultOf(failure))));
    }

    private Timer timer(String operation, String result) {
        return Timer.builder("idempotency.store")
                .description("Calls to the idempotency store and its reservations")
                .tags(common.and("operation", operation, "result", result))
                .register(registry);
    }

    /** {@code unavailable} for what the engine answers 503 for, {@code error} for anything else. */
    static String resultOf(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof StorageUnavailableException ? UNAVAILABLE : ERROR;
    }
}
