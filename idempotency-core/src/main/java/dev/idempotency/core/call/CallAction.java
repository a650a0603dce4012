package dev.idempotency.core.call;

/**
 * The work of an idempotent call, run at most once per key while its record lives (see the mode's
 * guarantees). What it throws fails the execution — the key is released — and is rethrown unchanged.
 *
 * @param <R> its result
 * @param <X> the checked exception it may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface CallAction<R, X extends Exception> {

    R run(CallContext context) throws X;
}
