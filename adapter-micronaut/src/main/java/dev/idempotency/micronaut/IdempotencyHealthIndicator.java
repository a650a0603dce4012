package dev.idempotency.micronaut;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.internal.StorageHealth;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.core.util.StringUtils;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.endpoint.health.HealthEndpoint;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.reactivestreams.Publisher;

/**
 * {@code idempotency} in {@code /health} (and {@code /health/readiness}): {@link StorageHealth} in
 * Micronaut's types, checked on the blocking executor, as the store may block.
 * Present with micronaut-management on the classpath; off with
 * {@code endpoints.health.idempotency.enabled: false}.
 */
@Singleton
@Readiness
@Requires(classes = HealthIndicator.class)
@Requires(beans = {HealthEndpoint.class, IdempotencyEngine.class})
@Requires(property = HealthEndpoint.PREFIX + ".idempotency.enabled", notEquals = StringUtils.FALSE)
class IdempotencyHealthIndicator implements HealthIndicator {

    private final IdempotencyEngine engine;
    private final ExecutorService executor;

    IdempotencyHealthIndicator(IdempotencyEngine engine, @Named(TaskExecutors.BLOCKING) ExecutorService executor) {
        this.engine = engine;
        this.executor = executor;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        return Publishers.fromCompletableFuture(() -> CompletableFuture.supplyAsync(this::check, executor));
    }

    private HealthResult check() {
        return StorageHealth.downReason(engine)
                .map(reason -> HealthResult.builder(StorageHealth.NAME, HealthStatus.DOWN)
                        .details(Map.of(StorageHealth.REASON, reason)).build())
                .orElseGet(() -> HealthResult.builder(StorageHealth.NAME, HealthStatus.UP).build());
    }
}
