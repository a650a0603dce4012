package dev.idempotency.micronaut;

import io.micronaut.aop.Around;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A bean method that runs at most once per (scope, key): a repeat with the same key and equal
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
 * public Receipt charge(ChargeCommand command) { ... }
 * }</pre>
 *
 * <p>Around advice, applied outside {@code @Transactional}: the method's transaction commits before
 * its result is stored. The method's transaction is not the atomic mode's: Micronaut has no join of
 * the JDBC store's transaction yet. A method returning a {@code CompletionStage}, a {@code Future} or
 * a reactive type is refused.
 */
@Around
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentMethod {

    /**
     * What kind of operation the key belongs to: 1 to 100 letters, digits and {@code - . _ ~}, such
     * as {@code payments} or {@code orders.create}. Keys of different scopes never meet.
     */
    String scope();

    /**
     * A parameter's name, then properties separated by dots ({@code command.id}: a record component,
     * a getter, a public field or a map entry), whose value, as a string, is the key: 1 to 255
     * printable ASCII characters.
     */
    String key();

    /**
     * The names of the parameters whose values are the call's input — its fingerprint, so that a
     * repeat of the key with other values is refused; all of them when empty. The input is the JSON
     * array of those values, in the order named (or declared).
     */
    String[] input() default {};
}
