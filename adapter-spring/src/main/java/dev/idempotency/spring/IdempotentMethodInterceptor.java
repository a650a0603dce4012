package dev.idempotency.spring;

import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.store.RecordKey;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.GenericTypeResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Runs an {@link IdempotentMethod} through {@link IdempotentCalls#call}: the key from the
 * annotation's expression, the input from the arguments it names, the result decoded as the method's
 * return type resolved against the bean's class; with the atomic mode's transaction joined around the
 * method ({@link TransactionJoin}). Each method's annotation is read, checked and parsed once.
 */
final class IdempotentMethodInterceptor implements MethodInterceptor {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private final Supplier<IdempotentCalls> calls;
    private final Supplier<TransactionJoin> transactions;
    private final Map<MethodClassKey, Described> described = new ConcurrentHashMap<>();

    /** Both are looked up on the first call, so that the proxies need no engine while the context starts. */
    IdempotentMethodInterceptor(Supplier<IdempotentCalls> calls, Supplier<TransactionJoin> transactions) {
        this.calls = calls;
        this.transactions = transactions;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> target = invocation.getThis() == null ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(invocation.getThis());
        Described method = described.computeIfAbsent(new MethodClassKey(invocation.getMethod(), target),
                key -> Described.of(AopUtils.getMostSpecificMethod(invocation.getMethod(), target), target));
        IdempotentCall call = method.call(invocation.getArguments());
        TransactionJoin join = transactions.get();
        return calls.get().call(call, method.resultType, context -> {
            try (TransactionJoin.Joined joined = join.join(context, RecordKey.preview(call.key()))) {
                Object value = proceed(invocation);
                if (joined.rollbackOnly()) { // a @Transactional method that took part failed, and it was caught
                    throw SpringTransactionJoin.rolledBack(method.name);
                }
                return value;
            }
        });
    }

    private static Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable other) {
            throw new UndeclaredThrowableException(other);
        }
    }

    /** A method's annotation, checked and parsed. */
    private static final class Described {

        final String name;
        final Method method;
        final String scope;
        final Expression key;
        final int[] input;
        final Type resultType;

        private Described(Method method, IdempotentMethod annotation, int[] input, Type resultType) {
            this.name = method.getDeclaringClass().getSimpleName() + "." + method.getName();
            this.method = method;
            this.scope = annotation.scope();
            this.key = PARSER.parseExpression(annotation.key());
            this.input = input;
            this.resultType = resultType;
        }

        /**
         * @throws IllegalStateException when the annotation names no parameter of the method, or
         *                               the method returns a value that completes later
         */
        static Described of(Method method, Class<?> target) {
            IdempotentMethod annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentMethod.class);
            if (annotation == null) {
                throw new IllegalStateException("No @IdempotentMethod on " + method);
            }
            Class<?> returned = method.getReturnType();
            if (Future.class.isAssignableFrom(returned)
                    || ReactiveAdapterRegistry.getSharedInstance().getAdapter(returned) != null) {
                throw new IllegalStateException("@IdempotentMethod runs methods whose result is there when they "
                        + "return; " + method + " returns a " + returned.getName());
            }
            IdempotentCall.of(annotation.scope(), "checked", null); // the scope's checks, once
            Type result = returned == void.class ? Object.class
                    : GenericTypeResolver.resolveType(method.getGenericReturnType(), target);
            return new Described(method, annotation, input(method, annotation.input()), result);
        }

        private static int[] input(Method method, String[] named) {
            if (named.length == 0) {
                return IntStream.range(0, method.getParameterCount()).toArray();
            }
            String[] names = NAMES.getParameterNames(method);
            if (names == null) {
                throw new IllegalStateException("@IdempotentMethod(input = ...) needs the parameter names of " + method
                        + ": compile with -parameters (Spring Boot's build plugins do)");
            }
            List<String> declared = Arrays.asList(names);
            return Arrays.stream(named).mapToInt(name -> {
                int index = declared.indexOf(name);
                if (index < 0) {
                    throw new IllegalStateException("@IdempotentMethod(input) names " + name
                            + ", which is not a parameter of " + method);
                }
                return index;
            }).toArray();
        }

        /** The call of these arguments. */
        IdempotentCall call(Object[] arguments) {
            Object value = key.getValue(new MethodBasedEvaluationContext(null, method, arguments, NAMES));
            if (value == null) {
                throw new IllegalArgumentException("The key of @IdempotentMethod on " + name + " ("
                        + key.getExpressionString() + ") is null");
            }
            List<Object> values = Arrays.stream(input).mapToObj(i -> arguments[i]).toList();
            return IdempotentCall.of(scope, value.toString(), values);
        }
    }
}
