package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.framework.IdempotencyConfigCustomizer;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A customizer bean nothing injects (so the container must find it by its type): it adds a
 * listener recording the engine's events, and counts how often it is called.
 */
@Singleton
public class RecordingCustomizer implements IdempotencyConfigCustomizer {

    static final AtomicInteger CALLS = new AtomicInteger();
    static final List<IdempotencyEvent> EVENTS = new CopyOnWriteArrayList<>();

    @Override
    public void customize(IdempotencyConfig.Builder config) {
        CALLS.incrementAndGet();
        config.addListener(EVENTS::add);
    }
}
