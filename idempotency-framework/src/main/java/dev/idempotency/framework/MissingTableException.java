package dev.idempotency.framework;

/**
 * The schema check at start found no table for the store: the message names the table, the
 * migrations that create it and the setting that creates it at start ({@link #initializeSchemaKey()}),
 * so a framework can show it as the reason its start failed (Spring Boot: a failure analysis).
 */
public final class MissingTableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String initializeSchemaKey;

    /** @param initializeSchemaKey the key that creates the table at start, e.g. {@code idempotency.r2dbc.initialize-schema} */
    public MissingTableException(String message, String initializeSchemaKey, Throwable cause) {
        super(message, cause);
        this.initializeSchemaKey = initializeSchemaKey;
    }

    /** The key that creates the table at start. */
    public String initializeSchemaKey() {
        return initializeSchemaKey;
    }
}
