package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlSession;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Values in and records out ({@link Records}) on the Vert.x client: a {@link Tuple}, and a row read back. */
final class Rows {

    private Rows() {
    }

    /** {@code values} in the order of {@code statement}'s placeholders. */
    static Tuple bind(Placeholders.Sql statement, Map<String, ?> values) {
        Tuple tuple = Tuple.tuple();
        for (String name : statement.parameters()) {
            if (!values.containsKey(name)) {
                throw new IllegalArgumentException("No value for " + name + " in " + statement.text());
            }
            Object value = values.get(name);
            if (value instanceof Instant instant) {
                tuple.addValue(OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
            } else if (value instanceof byte[] bytes) {
                tuple.addValue(Buffer.buffer(bytes));
            } else {
                tuple.addValue(value);
            }
        }
        return tuple;
    }

    /** The record of {@code key} a row holding the record columns describes (the row was found by the whole key). */
    static IdempotencyRecord read(RecordKey key, Row row) {
        return Records.read(key, columns(row));
    }

    /** Each of {@code rows} mapped. */
    static <T> List<T> map(RowSet<Row> rows, Function<SqlSession.Row, T> mapping) {
        List<T> mapped = new ArrayList<>();
        for (Row row : rows) {
            mapped.add(mapping.apply(columns(row)));
        }
        return mapped;
    }

    /** {@code row}'s columns as idempotency-sql reads them. */
    static SqlSession.Row columns(Row row) {
        return new SqlSession.Row() {
            @Override
            public <T> T get(String column, Class<T> type) {
                return row.get(type, column);
            }

            @Override
            public boolean localTime() {
                return false;
            }

            @Override
            public byte[] bytes(String column) {
                Buffer body = row.getBuffer(column);
                return body == null ? null : body.getBytes();
            }
        };
    }
}
