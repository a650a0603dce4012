package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.micrometer.IdempotencyMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;
import java.util.Optional;

/**
 * The engine's meters ({@code idempotency-micrometer}) on the application's {@link MeterRegistry};
 * loaded only with Micrometer on the class path. An application's own {@link IdempotencyMetrics}
 * bean is used instead of one made here.
 */
final class Meters {

    private Meters() {
    }

    static Optional<IdempotencyListener> listener(boolean pathTag) {
        InstanceHandle<IdempotencyMetrics> own = Arc.container().instance(IdempotencyMetrics.class);
        if (own.isAvailable()) {
            return Optional.of(own.get().listener());
        }
        InstanceHandle<MeterRegistry> registry = Arc.container().instance(MeterRegistry.class);
        return registry.isAvailable()
                ? Optional.of(IdempotencyMetrics.builder(registry.get()).pathTag(pathTag).build().listener())
                : Optional.empty();
    }
}
