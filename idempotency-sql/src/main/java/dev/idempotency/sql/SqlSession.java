package dev.idempotency.sql;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * One connection of a SQL store, in the driver's words: what {@link AtomicSql} and the won
 * {@link SqlReservation} run their statements through. Statements are the catalog's, by name,
 * with their {@code :named} values; a driver renders them once ({@link SqlCatalog#numberedCasts},
 * {@link SqlCatalog#questionMarks}). The caller sends one statement at a time, in order.
 * A failure completes the stage exceptionally with the driver's exception ({@link SqlConnections#error}).
 */
public interface SqlSession {

    /** The rows statement {@code name} returns, each mapped while it is readable. */
    <T> CompletionStage<List<T>> query(String name, Map<String, ?> values, Function<Row, T> mapping);

    /** How many rows statement {@code name} changed. */
    CompletionStage<Long> update(String name, Map<String, ?> values);

    /** Statements without parameters, as text ({@code BEGIN}, {@code COMMIT}, a session setting). */
    CompletionStage<Void> execute(String sql);

    /** Gives the connection back to the pool; never fails. */
    CompletionStage<Void> close();

    /** What a handler in the atomic mode may reach: the connection, its pool. */
    <T> Optional<T> unwrap(Class<T> type);

    /** A row as the statements read it: the record's columns and the reservation's {@code won}. */
    interface Row extends Records.Columns {
        Boolean bool(String column);
    }
}
