package dev.idempotency.micronaut;

import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.micrometer.IdempotencyMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.util.StringUtils;
import jakarta.inject.Singleton;

/**
 * Binds the engine's meters ({@code idempotency-micrometer}) to the application's
 * {@link MeterRegistry} when there is one: its listener joins the engine's listeners. Off with {@code idempotency.metrics.enabled: false};
 * {@code idempotency.metrics.path-tag: true} adds the path tag. An application that defines an
 * {@link IdempotencyMetrics} bean itself gets that one used.
 */
@Factory
@Requires(classes = {MeterRegistry.class, IdempotencyMetrics.class})
@Requires(beans = MeterRegistry.class)
@Requires(property = IdempotencyProperties.PREFIX + ".enabled", value = StringUtils.TRUE)
@Requires(property = IdempotencyMetricsFactory.PREFIX + ".enabled", notEquals = StringUtils.FALSE)
class IdempotencyMetricsFactory {

    static final String PREFIX = IdempotencyProperties.PREFIX + ".metrics";

    @Singleton
    @Requires(missingBeans = IdempotencyMetrics.class)
    IdempotencyMetrics idempotencyMetrics(MeterRegistry registry,
                                          @Value("${" + PREFIX + ".path-tag:false}") boolean pathTag) {
        return IdempotencyMetrics.builder(registry).pathTag(pathTag).build();
    }

    @Singleton
    IdempotencyListener idempotencyMetricsListener(IdempotencyMetrics metrics) {
        return metrics.listener();
    }
}
