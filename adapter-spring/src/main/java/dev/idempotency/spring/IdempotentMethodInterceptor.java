package dev.idempotency.spring;

import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.framework.internal.AnnotatedMethod;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
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
        return calls.get().call(call, method.shape.resultType(), context -> {
            try (TransactionJoin.Joined joined = join.join(context, RecordKey.preview(call.key()))) {
                Object value = proceed(invocation);
                if (joined.rollbackOnly()) { // a @Transactional method that took part failed, and it was caught
                    throw SpringTransactionJoin.rolledBack(method.shape.name());
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

    /** A method's annotation, checked and parsed: the key's expression here, the rest shared. */
    private static final class Described {

        final Method method;
        final Expression key;
        final AnnotatedMethod shape;

        private Described(Method method, Expression key, AnnotatedMethod shape) {
            this.method = method;
            this.key = key;
            this.shape = shape;
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
            if (ReactiveAdapterRegistry.getSharedInstance().getAdapter(method.getReturnType()) != null) {
                throw AnnotatedMethod.completesLater("@IdempotentMethod", method);
            }
            String[] names = annotation.input().length == 0 ? null : NAMES.getParameterNames(method);
            return new Described(method, PARSER.parseExpression(annotation.key()), AnnotatedMethod.of(method, target,
                    "@IdempotentMethod", annotation.scope(), annotation.input(), names));
        }

        /** The call of these arguments. */
        IdempotentCall call(Object[] arguments) {
            Object value = key.getValue(new MethodBasedEvaluationContext(null, method, arguments, NAMES));
            if (value == null) {
                throw new IllegalArgumentException("The key of @IdempotentMethod on " + shape.name() + " ("
                        + key.getExpressionString() + ") is null");
            }
            return shape.call(value, arguments);
        }
    }
}
