package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.ResultCodec;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * {@link IdempotentMethod} on the application's beans, when the engine has a store bean (the
 * auto-configured {@code JdbcStore} or {@code R2dbcStore}, or the application's {@code Store} or
 * {@code AsyncStore}): an {@link IdempotentCalls} over that store and the engine's configuration —
 * the {@code idempotency.*} settings, resolvers, listeners and customizers — which is a second
 * engine over the same store, with a timer thread of its own, created when first needed; and the
 * advisor that applies the annotation through Spring AOP's proxies (an infrastructure advisor, as
 * {@code @Transactional}'s: no AspectJ needed).
 *
 * <p>The results' codec is the application's {@link ResultCodec} bean; else Jackson 3 over its
 * {@code ObjectMapper} bean (Spring Boot 4's {@code JsonMapper}); else {@link ResultCodec#json()}
 * (Jackson 2).
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnBean(IdempotencyEngine.class)
public class IdempotentMethodAutoConfiguration {

    /**
     * The advisor's order: before Spring's transaction advisor (lowest precedence by default), so
     * that a {@code @Transactional} method runs inside the call and joins its atomic transaction.
     */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    // Lazy: an application that never calls an @IdempotentMethod (nor injects IdempotentCalls) gets no
    // second engine, timer thread and start-up warnings.
    @Bean(destroyMethod = "close")
    @Lazy
    @ConditionalOnMissingBean
    @ConditionalOnBean(Store.class)
    IdempotentCalls idempotentCalls(Store store, IdempotencyEngine engine, ObjectProvider<ResultCodec> codecs,
                                    BeanFactory beans) {
        return new IdempotentCalls(store, engine.config(), codec(codecs, beans));
    }

    @Bean(destroyMethod = "close")
    @Lazy
    @ConditionalOnMissingBean({IdempotentCalls.class, Store.class})
    @ConditionalOnBean(AsyncStore.class)
    IdempotentCalls idempotentAsyncStoreCalls(AsyncStore store, IdempotencyEngine engine,
                                              ObjectProvider<ResultCodec> codecs, BeanFactory beans) {
        return new IdempotentCalls(store, engine.config(), codec(codecs, beans));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnBean(IdempotentCalls.class)
    static Advisor idempotentMethodAdvisor(ObjectProvider<IdempotentCalls> calls,
                                           ObjectProvider<TransactionJoin> transactions) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(IdempotentMethod.class),
                new IdempotentMethodInterceptor(calls::getObject,
                        () -> transactions.getIfAvailable(() -> TransactionJoin.NONE)));
        advisor.setOrder(ORDER);
        return advisor;
    }

    private static ResultCodec codec(ObjectProvider<ResultCodec> codecs, BeanFactory beans) {
        ResultCodec codec = codecs.getIfUnique();
        if (codec != null) {
            return codec;
        }
        boolean jackson3 = ClassUtils.isPresent("tools.jackson.databind.ObjectMapper",
                IdempotentMethodAutoConfiguration.class.getClassLoader());
        return jackson3 ? JsonMapperResultCodec.of(beans) : ResultCodec.json();
    }
}
