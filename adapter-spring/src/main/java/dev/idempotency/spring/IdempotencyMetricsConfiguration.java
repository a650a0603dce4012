package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.micrometer.IdempotencyMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Binds the engine's meters ({@code idempotency-micrometer}) to the application's
 * {@link MeterRegistry} when there is one: its listener joins the engine's listeners. Off with {@code idempotency.metrics.enabled=false};
 * {@code idempotency.metrics.path-tag=true} adds the path tag. An application that defines an
 * {@link IdempotencyMetrics} bean itself gets that one used.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({MeterRegistry.class, IdempotencyMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "idempotency.metrics", name = "enabled", matchIfMissing = true)
class IdempotencyMetricsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyMetrics idempotencyMetrics(MeterRegistry registry, IdempotencyProperties properties) {
        return IdempotencyMetrics.builder(registry).pathTag(properties.getMetrics().isPathTag()).build();
    }

    @Bean
    IdempotencyListener idempotencyMetricsListener(IdempotencyMetrics metrics) {
        return metrics.listener();
    }
}
