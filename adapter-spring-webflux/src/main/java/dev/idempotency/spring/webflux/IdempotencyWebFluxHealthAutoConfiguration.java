package dev.idempotency.spring.webflux;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spring.IdempotencyAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * In a reactive web application with Spring Boot's health module: the {@code idempotency} health
 * component as a {@link ReactiveHealthIndicator} ({@link IdempotencyReactiveHealthIndicator}), in
 * place of idempotency-spring's blocking one (so ordered before its auto-configuration); off with
 * {@code management.health.idempotency.enabled=false}.
 */
@AutoConfiguration(before = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ReactiveHealthIndicator.class, Mono.class})
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", havingValue = "true")
@ConditionalOnEnabledHealthIndicator("idempotency")
public class IdempotencyWebFluxHealthAutoConfiguration {

    // Boot names the component after the bean, less "HealthIndicator": idempotency.
    @Bean
    @ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
    ReactiveHealthIndicator idempotencyHealthIndicator(ObjectProvider<IdempotencyEngine> engine) {
        return new IdempotencyReactiveHealthIndicator(engine::getObject);
    }
}
