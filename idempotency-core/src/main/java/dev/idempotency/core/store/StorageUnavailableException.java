package dev.idempotency.core.store;

/**
 * The store cannot serve: its table is missing or its database cannot be reached. The engine
 * answers 503 and does not run the handler.
 */
public class StorageUnavailableException extends RuntimeException {

    /** Why the storage cannot serve. */
    public enum Reason {
        /** The storage exists but its schema (table) has not been created. */
        NOT_PROVISIONED,
        /** The storage cannot be reached: connection refused, pool timeout, shut down. */
        UNREACHABLE
    }

    private final Reason reason;

    public StorageUnavailableException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
