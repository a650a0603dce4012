package dev.idempotency.micronaut;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.StorageUnavailableException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code idempotency} in {@code /health} (and {@code /health/readiness}): UP when the engine's store
 * answers {@link IdempotencyEngine#checkStorage()}, DOWN otherwise — with the
 * {@link StorageUnavailableException.Reason} as {@code reason} in the details, or {@code UNEXPECTED}
 * for any other failure, which is logged. Never the exception's text: health details may be shown
 * to anonymous callers. The check runs on the blocking executor, as the store may block.
 * Present with micronaut-management on the classpath; off with
 * {@code endpoints.health.idempotency.enabled: false}.
 */
@Singleton
@Readiness
@Requires(classes = HealthIndicator.class)
@Requires(beans = {HealthEndpoint.class, IdempotencyEngine.class})
@Requires(property = HealthEndpoint.PREFIX + ".idempotency.enabled", notEquals = StringUtils.FALSE)
class IdempotencyHealthIndicator implements HealthIndicator {

    static final String NAME = "idempotency";

    private static final Logger log = LoggerFactory.getLogger(IdempotencyHealthIndicator.class);

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
        try {
            engine.checkStorage();
            return HealthResult.builder(NAME, HealthStatus.UP).build();
        } catch (StorageUnavailableException e) {
            return down(e.reason().name());
        } catch (RuntimeException e) {
            log.warn("Idempotency storage health check failed", e);
            return down("UNEXPECTED");
        }
    }

    private static HealthResult down(String reason) {
        return HealthResult.builder(NAME, HealthStatus.DOWN).details(Map.of("reason", reason)).build();
    }
}
