package dev.idempotency.micrometer;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.StoreCall;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's meters, fed by the engine's store calls: a timer per operation and result, and the
 * executions in flight — reservations won and not yet finished.
 */
final class StoreMeters implements IdempotencyListener {

    private final MeterRegistry registry;
    private final Tags common;
    private final AtomicLong active = new AtomicLong();
    private final AtomicBoolean gaugeRegistered = new AtomicBoolean();

    StoreMeters(MeterRegistry registry, Tags common) {
        this.registry = registry;
        this.common = common;
    }

    @Override
    public void onEvent(IdempotencyEvent event) {
    }

    @Override
    public void onStoreCall(StoreCall call) {
        if (call.result() == StoreCall.Result.WON) {
            registerGauge();
            active.incrementAndGet();
        } else if (call.finishesExecution()) {
            active.decrementAndGet();
        }
        String result = call.result() == StoreCall.Result.WON ? "success" : call.result().name().toLowerCase(Locale.ROOT);
        Timer.builder("idempotency.store")
                .description("Calls of the idempotency engine to its store and its reservations")
                .tags(common.and("operation", call.operation(), "result", result))
                .register(registry)
                .record(call.duration());
    }

    /** Once a reservation is won: in the optimistic mode nothing is reserved, and a gauge stuck at 0 would look measured. */
    private void registerGauge() {
        if (gaugeRegistered.compareAndSet(false, true)) {
            Gauge.builder("idempotency.executions.active", active, AtomicLong::get)
                    .description("Executions in flight: reservations won and not yet completed, released or aborted")
                    .tags(common)
                    .strongReference(true)
                    .register(registry);
        }
    }
}
