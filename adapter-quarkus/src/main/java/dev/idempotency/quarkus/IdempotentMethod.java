package dev.idempotency.quarkus;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A CDI bean method that runs at most once per (scope, key): a repeat with the same key and equal
 * arguments returns the first execution's result, decoded as the method's generic return type,
 * without running the method; {@link dev.idempotency.core.call.IdempotentCalls} decides, over the
 * application's idempotency store and settings (see {@code docs/calls.md}). A repeat with other
 * arguments throws {@link dev.idempotency.core.call.KeyReusedException}, one while the first still
 * runs {@link dev.idempotency.core.call.CallInFlightException}, a storage outage
 * {@link dev.idempotency.core.store.StorageUnavailableException}; what the method throws releases the
 * key and reaches the caller unchanged.
 *
 * <pre>{@code
 * @IdempotentMethod(scope = "payments", key = "command.id")
 * @Transactional
 * public Receipt charge(ChargeCommand command) { ... }
 * }</pre>
 *
 * <p>An interceptor binding, applied before {@code @Transactional}: in the atomic mode with the JDBC
 * store the call's JTA transaction is begun first and the method's {@code @Transactional} joins it.
 * Put it on methods (on a class it is refused); a method returning a {@code CompletionStage}, a
 * {@code Future} or a reactive type ({@code Uni}, {@code Multi}) is refused.
 */
@InterceptorBinding
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentMethod {

    /**
     * What kind of operation the key belongs to: 1 to 100 letters, digits and {@code - . _ ~}, such
     * as {@code payments} or {@code orders.create}. Keys of different scopes never meet.
     */
    @Nonbinding
    String scope();

    /**
     * A parameter's name, then properties separated by dots ({@code command.id}: a record component,
     * a getter, a public field or a map entry), whose value, as a string, is the key: 1 to 255
     * printable ASCII characters. Needs the {@code -parameters} compiler flag (Quarkus projects set it).
     */
    @Nonbinding
    String key();

    /**
     * The names of the parameters whose values are the call's input — its fingerprint, so that a
     * repeat of the key with other values is refused; all of them when empty. The input is the JSON
     * array of those values, in the order named (or declared).
     */
    @Nonbinding
    String[] input() default {};
}
