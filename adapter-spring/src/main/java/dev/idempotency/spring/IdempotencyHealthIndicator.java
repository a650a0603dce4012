package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.internal.StorageHealth;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** The engine's store as a health component: {@link StorageHealth} in Spring Boot's types. */
final class IdempotencyHealthIndicator implements HealthIndicator {

    private final IdempotencyEngine engine;

    IdempotencyHealthIndicator(IdempotencyEngine engine) {
        this.engine = engine;
    }

    @Override
    public Health health() {
        return StorageHealth.downReason(engine)
                .map(reason -> Health.down().withDetail(StorageHealth.REASON, reason).build())
                .orElseGet(() -> Health.up().build());
    }
}
