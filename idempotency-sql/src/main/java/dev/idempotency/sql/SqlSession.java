package dev.idempotency.sql;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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

    /** Statements without parameters, as text (a session setting). */
    CompletionStage<Void> execute(String sql);

    /**
     * Opens a READ COMMITTED transaction whose first statements are {@code setUp} (statements
     * without parameters, or {@code null}); the statements after it run in it until
     * {@link #commit} or {@link #rollback}.
     */
    CompletionStage<Void> begin(String setUp);

    default CompletionStage<Void> commit() {
        return execute("COMMIT");
    }

    default CompletionStage<Void> rollback() {
        return execute("ROLLBACK");
    }

    /**
     * Statements {@code names}, each with the {@code values} it names, sent together (one message
     * where the driver can); the rows of the one at {@code rowsAt}. By default each is sent in turn.
     */
    default <T> CompletionStage<List<T>> queryTogether(List<String> names, int rowsAt, Map<String, ?> values,
                                                       Function<Row, T> mapping) {
        List<CompletionStage<List<T>>> sent = new java.util.ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            sent.add(query(names.get(i), values, i == rowsAt ? mapping : row -> null));
        }
        // In order, so that the first failure is the one reported (the later ones only follow from it).
        CompletionStage<?> all = sent.get(0);
        for (CompletionStage<List<T>> next : sent.subList(1, sent.size())) {
            all = all.thenCompose(v -> next);
        }
        return all.thenCompose(v -> sent.get(rowsAt));
    }

    /**
     * Statement {@code name}, then COMMIT — or, with {@code onlyOne}, ROLLBACK unless it changed
     * exactly one row; how many rows it changed. By default two statements.
     */
    default CompletionStage<Long> updateAndEnd(String name, Map<String, ?> values, boolean onlyOne) {
        return update(name, values).thenCompose(n -> (onlyOne && n != 1 ? rollback() : commit()).thenApply(v -> n));
    }

    /**
     * The key's row as the {@code upsert} statement leaves it (MariaDB: its {@code RETURNING});
     * a driver whose dialect cannot return it writes, then reads the row back ({@code readBack}),
     * and answers no row when the write lost a race for a new key.
     */
    default <T> CompletionStage<List<T>> upsert(Map<String, ?> values, Function<Row, T> mapping) {
        return query("upsert", values, mapping);
    }

    /** {@code read} at READ UNCOMMITTED: by default set for the next transaction only (MariaDB/MySQL). */
    default <T> CompletionStage<T> readUncommitted(java.util.function.Supplier<CompletionStage<T>> read) {
        return execute("SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED").thenCompose(v -> read.get());
    }

    /** Gives the connection back to the pool; never fails. */
    CompletionStage<Void> close();

    /** Ends the connection so that the pool discards it (a session lock that could not be released); by default {@link #close}. */
    default CompletionStage<Void> abort() {
        return close();
    }

    /** What a handler in the atomic mode may reach: the connection, its pool. */
    <T> Optional<T> unwrap(Class<T> type);

    /** A row as the statements read it: the record's columns and the reservation's {@code won}. */
    interface Row extends Records.Columns {

        /** Column {@code column} converted by the driver to {@code type}, or {@code null}. */
        <T> T get(String column, Class<T> type);

        /** Whether times are read as UTC {@link LocalDateTime} (MariaDB/MySQL {@code DATETIME}). */
        boolean localTime();

        default Boolean bool(String column) {
            return get(column, Boolean.class);
        }

        @Override
        default String text(String column) {
            return get(column, String.class);
        }

        @Override
        default Short int2(String column) {
            return get(column, Short.class);
        }

        @Override
        default byte[] bytes(String column) {
            return get(column, byte[].class);
        }

        @Override
        default Instant instant(String column) {
            if (localTime()) {
                LocalDateTime value = get(column, LocalDateTime.class);
                return value == null ? null : value.toInstant(ZoneOffset.UTC);
            }
            OffsetDateTime value = get(column, OffsetDateTime.class);
            return value == null ? null : value.toInstant();
        }
    }
}
