package dev.idempotency.sql;

import java.util.concurrent.CompletionStage;

/** Where {@link SqlSession}s come from, and what a driver's failure says in SQL's terms. */
public interface SqlConnections {

    /** A pooled connection, in autocommit mode, as the pool lends it. */
    CompletionStage<SqlSession> open();

    /** The SQLSTATE and vendor code of {@code failure}, or {@code null} when it is no database error. */
    SqlError error(Throwable failure);

    /** A database error: its SQLSTATE (or {@code null}), vendor code (or 0) and message. */
    record SqlError(String sqlState, int code, String message) {
    }
}
