package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.StorageUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when the engine's store answers {@link IdempotencyEngine#checkStorage()}, DOWN otherwise —
 * with the {@link StorageUnavailableException.Reason} as {@code reason} in the details
 * ({@code NOT_PROVISIONED}, {@code UNREACHABLE}, {@code BUSY}), or {@code UNEXPECTED} for any other
 * failure, which is logged. Never the exception's text: health details may be shown to anonymous
 * callers. The same component as the Micronaut adapter's.
 */
final class IdempotencyHealthIndicator implements HealthIndicator {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyHealthIndicator.class);

    private final IdempotencyEngine engine;

    IdempotencyHealthIndicator(IdempotencyEngine engine) {
        this.engine = engine;
    }

    @Override
    public Health health() {
        try {
            engine.checkStorage();
            return Health.up().build();
        } catch (StorageUnavailableException e) {
            return down(e.reason().name());
        } catch (RuntimeException e) {
            log.warn("Idempotency storage health check failed", e);
            return down("UNEXPECTED");
        }
    }

    private static Health down(String reason) {
        return Health.down().withDetail("reason", reason).build();
    }
}
