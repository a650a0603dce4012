package dev.idempotency.spring.webflux;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.spring.IdempotencyAutoConfiguration;
import dev.idempotency.spring.IdempotencyProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * With {@code idempotency.enabled=true} in a reactive web application: the {@link IdempotencyWebFilter}
 * on {@code idempotency.paths} at {@code idempotency.order} (after Spring Security's
 * {@code WebFilterChainProxy}, -100, by default), over the engine of {@link IdempotencyAutoConfiguration}
 * (or the application's own {@code IdempotencyEngine} bean). A blocking store's calls run on bounded
 * elastic schedulers of the filter's own, {@code idempotency} and {@code idempotency-completion}. The atomic mode is refused at start: its transaction cannot follow a
 * reactive handler yet.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({WebFilter.class, Mono.class})
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", havingValue = "true")
public class IdempotencyWebFluxAutoConfiguration {

    static final String ATOMIC_REFUSED = "idempotency.mode=atomic is not available in a Spring WebFlux application: "
            + "the atomic mode runs the handler inside the store's transaction, which a reactive handler cannot "
            + "join yet. Use idempotency.mode=reserve (the default) or optimistic.";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "idempotencyWebFilter")
    IdempotencyWebFilter idempotencyWebFilter(IdempotencyProperties properties, ObjectProvider<IdempotencyEngine> engines,
                                              ObjectProvider<ServerCodecConfigurer> codecs) {
        if (properties.getMode() == Mode.ATOMIC) {
            throw new IllegalStateException(ATOMIC_REFUSED);
        }
        IdempotencyEngine engine = engines.getObject();
        if (engine.config().mode() == Mode.ATOMIC) {
            throw new IllegalStateException(ATOMIC_REFUSED);
        }
        return new IdempotencyWebFilter(engine, properties.getPaths(), properties.getOrder(),
                codecs.getIfUnique(ServerCodecConfigurer::create));
    }
}
