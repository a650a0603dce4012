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
        /** The storage cannot be reached: connection refused or reset, shut down. */
        UNREACHABLE,
        /**
         * The storage is there but did not answer in time: no free connection in the pool within
         * its timeout, a lock or statement timeout on something other than the key's own record.
         * Overload, not an outage: the client should retry shortly.
         */
        BUSY
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
