package dev.idempotency.r2dbc;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlSession;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.Statement;
import java.time.Instant;
import java.util.Map;

/** Values bound into a statement and records read out of a row, for either {@link Database}. */
final class Rows {

    private Rows() {
    }

    /**
     * {@code values} bound to {@code statement} in the order of {@code sql}'s placeholders: times as
     * {@code db} binds them, the caller as its bytes ({@link Records#callerBytes}), a
     * {@code null} as the parameter's type.
     */
    static Statement bind(Statement statement, Database db, Placeholders.Sql sql, Map<String, ?> values) {
        for (int i = 0; i < sql.parameters().size(); i++) {
            String name = sql.parameters().get(i);
            if (!values.containsKey(name)) {
                throw new IllegalArgumentException("No value for " + name + " in " + sql.text());
            }
            Object value = values.get(name);
            Class<?> type = sql.types().get(i);
            if (value == null) {
                statement.bindNull(i, type == Instant.class ? db.catalog.dialect().timeType() : type);
            } else {
                statement.bind(i, value instanceof Instant instant ? db.catalog.dialect().time(instant) : value);
            }
        }
        return statement;
    }

    /** The record of {@code key} a row holding the record columns describes (the row was found by the whole key). */
    static IdempotencyRecord read(RecordKey key, Row row, Database db) {
        return Records.read(key, columns(row, db));
    }

    /** {@code row}'s columns as idempotency-sql reads them. */
    static SqlSession.Row columns(Row row, Database db) {
        return new SqlSession.Row() {
            @Override
            public <T> T get(String column, Class<T> type) {
                return row.get(column, type);
            }

            @Override
            public boolean localTime() {
                return db.catalog.dialect().localTime();
            }
        };
    }
}
