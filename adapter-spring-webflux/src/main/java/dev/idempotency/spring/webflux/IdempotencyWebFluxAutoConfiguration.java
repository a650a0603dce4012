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
import org.springframework.util.ClassUtils;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * With {@code idempotency.enabled=true} in a reactive web application: the {@link IdempotencyWebFilter}
 * on {@code idempotency.paths} at {@code idempotency.order} (after Spring Security's
 * {@code WebFilterChainProxy}, -100, by default), over the engine of {@link IdempotencyAutoConfiguration}
 * (or the application's own {@code IdempotencyEngine} bean). A blocking store's calls run on bounded
 * elastic schedulers of the filter's own, {@code idempotency} and {@code idempotency-completion}.
 * The atomic mode runs over an asynchronous transactional store (the auto-configured
 * {@code R2dbcStore}, or one of the application's), whose transaction the handler joins through spring-r2dbc
 * ({@link R2dbcTransactionJoin}); over a blocking store it is refused at start, as a reactive
 * handler cannot join a JDBC transaction.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({WebFilter.class, Mono.class})
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", havingValue = "true")
public class IdempotencyWebFluxAutoConfiguration {

    static final String ATOMIC_REFUSED = "idempotency.mode=atomic is not available over a blocking store in a Spring "
            + "WebFlux application: the atomic mode runs the handler inside the store's transaction, which a reactive "
            + "handler cannot join on JDBC. For the atomic mode use the R2DBC store: idempotency-r2dbc with "
            + "Spring Boot's R2DBC (spring.r2dbc.url) and no DataSource, or an R2dbcStore bean; or use idempotency.mode=reserve (the default) or optimistic.";
    private static final String SPRING_R2DBC = "org.springframework.r2dbc.connection.ConnectionFactoryUtils";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "idempotencyWebFilter")
    IdempotencyWebFilter idempotencyWebFilter(IdempotencyProperties properties, ObjectProvider<IdempotencyEngine> engines,
                                              ObjectProvider<ServerCodecConfigurer> codecs) {
        IdempotencyEngine engine = engines.getObject();
        if (engine.config().mode() == Mode.ATOMIC && engine.blocksCaller()) {
            throw new IllegalStateException(ATOMIC_REFUSED);
        }
        ReactiveTransactionJoin join = ClassUtils.isPresent(SPRING_R2DBC, getClass().getClassLoader())
                ? new R2dbcTransactionJoin() : ReactiveTransactionJoin.NONE;
        return new IdempotencyWebFilter(engine, properties.getPaths(), properties.getOrder(), join,
                codecs.getIfUnique(ServerCodecConfigurer::create));
    }
}
