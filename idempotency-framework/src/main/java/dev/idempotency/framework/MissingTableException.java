package dev.idempotency.framework;

/**
 * The schema check at start found no table for the store. The message names the table, the
 * migrations that create it and the {@code initialize-schema} key that creates it at start, so a
 * framework can show it as the reason its start failed (Spring Boot: a failure analysis).
 */
public final class MissingTableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public MissingTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
