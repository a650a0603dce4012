package dev.idempotency.core.adapter;

/**
 * The atomic mode's transaction when it is bound to the thread that reserved the key (a JTA
 * transaction): code on that thread joins it, so the handler must run there and nowhere else.
 * An adapter reaches it through {@link Execution#unwrap}.
 */
public interface ThreadTransaction {

    /** Whether code that took part marked it rollback-only (a failed {@code @Transactional} method). */
    boolean rollbackOnly();
}
