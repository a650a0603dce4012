package dev.idempotency.core.store;

/** The life of a record: reserved and running, or finished with a stored response. */
public enum RecordState {
    /** Reserved by a request whose handler has not finished; guarded by a lease. */
    IN_FLIGHT,
    /** The handler finished and its response is stored for replay. */
    COMPLETED
}
