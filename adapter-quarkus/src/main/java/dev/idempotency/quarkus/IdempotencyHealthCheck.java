package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.internal.StorageHealth;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code idempotency} in {@code /q/health/ready}: {@link StorageHealth} in SmallRye Health's types,
 * on a worker thread ({@code @Blocking}), as the store may block. Present with
 * quarkus-smallrye-health (its build-time settings are there only with it, so the bean is not even
 * discovered without it) and {@code idempotency.enabled=true}.
 */
@Readiness
@Blocking
@ApplicationScoped
@IfBuildProperty(name = "quarkus.smallrye-health.extensions.enabled", stringValue = "true", enableIfMissing = false)
public class IdempotencyHealthCheck implements HealthCheck {

    private final IdempotencySettings settings;
    private final Instance<IdempotencyEngine> engine;

    IdempotencyHealthCheck(IdempotencySettings settings, Instance<IdempotencyEngine> engine) {
        this.settings = settings;
        this.engine = engine;
    }

    @Override
    public HealthCheckResponse call() {
        if (!settings.isEnabled()) {
            return HealthCheckResponse.named(StorageHealth.NAME).up().withData("enabled", false).build();
        }
        return StorageHealth.downReason(engine.get())
                .map(reason -> HealthCheckResponse.named(StorageHealth.NAME).down()
                        .withData(StorageHealth.REASON, reason).build())
                .orElseGet(() -> HealthCheckResponse.named(StorageHealth.NAME).up().build());
    }
}
