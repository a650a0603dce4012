package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code idempotency} health component ({@link IdempotencyHealthIndicator}) when the
 * application has Spring Boot's health module (spring-boot-health, brought by the actuator);
 * off with {@code management.health.idempotency.enabled=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("idempotency")
class IdempotencyHealthConfiguration {

    // Boot names the component after the bean, less "HealthIndicator": idempotency.
    @Bean
    @ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
    HealthIndicator idempotencyHealthIndicator(IdempotencyEngine engine) {
        return new IdempotencyHealthIndicator(engine);
    }
}
