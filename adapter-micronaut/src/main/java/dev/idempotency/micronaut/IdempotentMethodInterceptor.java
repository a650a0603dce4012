package dev.idempotency.micronaut;

import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.framework.internal.AnnotatedMethod;
import dev.idempotency.framework.internal.KeyPath;
import io.micronaut.aop.InterceptPhase;
import io.micronaut.aop.InterceptorBean;
import io.micronaut.aop.MethodInterceptor;
import io.micronaut.aop.MethodInvocationContext;
import io.micronaut.context.BeanProvider;
import io.micronaut.core.type.Argument;
import io.micronaut.inject.ExecutableMethod;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs an {@link IdempotentMethod} through {@link IdempotentCalls#call}: the key from the annotation's
 * path, the input from the arguments it names, the result decoded as the method's return type
 * ({@link AnnotatedMethod}); the parameter names are Micronaut's, known at compile time. Ordered
 * before the transaction phase, so that a result is stored only after the method's transaction
 * committed.
 */
@Singleton
@InterceptorBean(IdempotentMethod.class)
final class IdempotentMethodInterceptor implements MethodInterceptor<Object, Object> {

    private static final String ANNOTATION = "@IdempotentMethod";

    private final BeanProvider<IdempotentCalls> calls;
    private final Map<ExecutableMethod<?, ?>, Described> described = new ConcurrentHashMap<>();

    IdempotentMethodInterceptor(BeanProvider<IdempotentCalls> calls) {
        this.calls = calls;
    }

    @Override
    public int getOrder() {
        return InterceptPhase.TRANSACTION.getPosition() - 10;
    }

    @Override
    public Object intercept(MethodInvocationContext<Object, Object> context) {
        Described method = described.computeIfAbsent(context.getExecutableMethod(), key -> Described.of(context));
        if (!calls.isPresent()) {
            throw new IllegalStateException(ANNOTATION + " on " + method.shape.name() + " needs an IdempotentCalls "
                    + "bean: set idempotency.enabled=true and give the engine a Store (idempotency-jdbc's, or your own)");
        }
        Object[] arguments = context.getParameterValues();
        IdempotentCall call = method.shape.call(method.key.key(arguments), arguments);
        return calls.get().call(call, method.shape.resultType(), execution -> context.proceed());
    }

    /** A method's annotation, checked and parsed. */
    private record Described(KeyPath key, AnnotatedMethod shape) {

        static Described of(MethodInvocationContext<Object, Object> context) {
            Method method = context.getTargetMethod();
            String scope = context.stringValue(IdempotentMethod.class, "scope").orElse("");
            String key = context.stringValue(IdempotentMethod.class, "key").orElse("");
            String[] input = context.stringValues(IdempotentMethod.class, "input");
            String[] names = Arrays.stream(context.getArguments()).map(Argument::getName).toArray(String[]::new);
            return new Described(KeyPath.parse(key, method, ANNOTATION, names),
                    AnnotatedMethod.of(method, context.getTarget().getClass(), ANNOTATION, scope, input, names));
        }
    }
}
