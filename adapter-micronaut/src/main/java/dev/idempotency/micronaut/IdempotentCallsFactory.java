package dev.idempotency.micronaut;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.ResultCodec;
import dev.idempotency.core.store.Store;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.reflect.ClassUtils;
import io.micronaut.core.util.StringUtils;
import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * What runs the {@link IdempotentMethod}s: an {@link IdempotentCalls} over the application's
 * {@link Store} bean and the engine's configuration — a second engine with a timer thread of its
 * own, made on the first call. Results go through the application's {@link ResultCodec} bean, else
 * its Micronaut {@code JsonMapper}, else {@link ResultCodec#json()}. An application's own
 * {@code IdempotentCalls} bean replaces it.
 */
@Factory
@Requires(property = IdempotencyProperties.PREFIX + ".enabled", value = StringUtils.TRUE)
class IdempotentCallsFactory {

    @Singleton
    @Requires(beans = Store.class)
    @Requires(missingBeans = IdempotentCalls.class)
    @Bean(preDestroy = "close")
    IdempotentCalls idempotentCalls(Store store, IdempotencyEngine engine, BeanContext beans) {
        return new IdempotentCalls(store, engine.config(), codec(beans));
    }

    private static ResultCodec codec(BeanContext beans) {
        Optional<ResultCodec> codec = beans.findBean(ResultCodec.class);
        if (codec.isEmpty() && ClassUtils.isPresent("io.micronaut.json.JsonMapper", IdempotentCallsFactory.class.getClassLoader())) {
            codec = JsonMapperResultCodec.of(beans);
        }
        return codec.orElseGet(ResultCodec::json);
    }
}
