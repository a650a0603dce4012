package dev.idempotency.quarkus;

import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.framework.internal.AnnotatedMethod;
import dev.idempotency.framework.internal.KeyPath;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs an {@link IdempotentMethod} through {@link IdempotentCalls#call}: the key from the annotation's
 * path, the input from the arguments it names, the result decoded as the method's return type
 * ({@link AnnotatedMethod}). Its priority puts it outside Narayana's {@code @Transactional}
 * interceptors ({@code PLATFORM_BEFORE + 200}), so the atomic mode's transaction is there first.
 */
@IdempotentMethod(scope = "", key = "")
@Interceptor
@Priority(IdempotentMethodInterceptor.PRIORITY)
class IdempotentMethodInterceptor {

    static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;

    private static final String ANNOTATION = "@IdempotentMethod";

    private final Map<List<Object>, Described> described = new ConcurrentHashMap<>();

    @Inject
    Instance<IdempotentCalls> calls;

    @AroundInvoke
    Object around(InvocationContext context) throws Exception {
        Class<?> target = context.getTarget().getClass();
        Described method = described.computeIfAbsent(List.of(context.getMethod(), target),
                key -> Described.of(context.getMethod(), target));
        Object[] arguments = context.getParameters();
        IdempotentCall call = method.shape.call(method.key.key(arguments), arguments);
        return calls.get().call(call, method.shape.resultType(), execution -> context.proceed());
    }

    /** A method's annotation, checked and parsed. */
    private record Described(KeyPath key, AnnotatedMethod shape) {

        static Described of(Method method, Class<?> target) {
            IdempotentMethod annotation = method.getAnnotation(IdempotentMethod.class);
            if (annotation == null) {
                throw new IllegalStateException(ANNOTATION + " goes on methods, not on a class: " + method);
            }
            Parameter[] parameters = method.getParameters();
            String[] names = parameters.length > 0 && !parameters[0].isNamePresent() ? null
                    : Arrays.stream(parameters).map(Parameter::getName).toArray(String[]::new);
            return new Described(KeyPath.parse(annotation.key(), method, ANNOTATION, names),
                    AnnotatedMethod.of(method, target, ANNOTATION, annotation.scope(), annotation.input(), names));
        }
    }
}
