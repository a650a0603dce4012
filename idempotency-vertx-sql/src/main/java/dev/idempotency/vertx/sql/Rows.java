package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.internal.PostgresSql;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Values in and records out: the parameter values by name, bound as a {@link Tuple}, and a row read back. */
final class Rows {

    private Rows() {
    }

    /** The time a statement compares against or stores: the caller's, at microsecond precision. */
    static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    /** The primary key's values; the caller as its raw bytes (none for an anonymous caller), bound as {@code bytea}. */
    static Map<String, Object> keyValues(RecordKey k) {
        Map<String, Object> values = new HashMap<>();
        values.put("key", k.key());
        values.put("tenant_id", k.tenant());
        values.put("caller", PostgresSql.callerBytes(k));
        values.put("method", k.method());
        values.put("path", k.path());
        return values;
    }

    /** Every column's value of a new row, and {@code now}. */
    static Map<String, Object> newRow(RecordKey key, String fingerprint, String state, String ownerToken,
                                      Instant lockedUntil, StoredResponse response, Instant expiresAt, Instant now) {
        Map<String, Object> values = keyValues(key);
        values.put("request_hash", fingerprint);
        values.put("state", state);
        values.put("owner_token", ownerToken);
        values.put("locked_until", lockedUntil);
        values.put("response_status", response == null ? null : (short) response.status());
        values.put("response_content_type", response == null ? null : response.contentType());
        values.put("response_headers", response == null ? null : HeaderCodec.encode(response.headers()));
        values.put("response_body", response == null ? null : response.body());
        values.put("format_version", (short) (response == null ? HeaderCodec.FORMAT_VERSION
                : HeaderCodec.formatVersion(response)));
        values.put("expires_at", expiresAt);
        values.put("created_at", now);
        values.put("now", now);
        return values;
    }

    /** The values of the completion's UPDATE. */
    static Map<String, Object> completion(RecordKey key, String ownerToken, StoredResponse response) {
        Map<String, Object> values = keyValues(key);
        values.put("owner_token", ownerToken);
        values.put("response_status", (short) response.status());
        values.put("response_content_type", response.contentType());
        values.put("response_headers", HeaderCodec.encode(response.headers()));
        values.put("response_body", response.body());
        values.put("format_version", (short) HeaderCodec.formatVersion(response));
        return values;
    }

    /** {@code values} in the order of {@code statement}'s placeholders. */
    static Tuple bind(PostgresSql.Statement statement, Map<String, ?> values) {
        Tuple tuple = Tuple.tuple();
        for (String name : statement.parameters()) {
            if (!values.containsKey(name)) {
                throw new IllegalArgumentException("No value for " + name + " in " + statement.sql());
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
        String state = row.getString("state");
        Instant expires = instant(row, "expires_at");
        String fingerprint = row.getString("request_hash");
        if (PostgresSql.COMPLETED.equals(state)) {
            Buffer body = row.getBuffer("response_body");
            StoredResponse response = HeaderCodec.response(row.getShort("response_status"),
                    row.getString("response_content_type"), row.getString("response_headers"),
                    body == null ? null : body.getBytes(), row.getShort("format_version"));
            return new IdempotencyRecord(key, fingerprint, RecordState.COMPLETED, response, expires, null);
        }
        if (PostgresSql.IN_FLIGHT.equals(state)) {
            return new IdempotencyRecord(key, fingerprint, RecordState.IN_FLIGHT, null, expires,
                    instant(row, "locked_until"));
        }
        throw new IllegalStateException("Unknown record state '" + state + "' for " + key);
    }

    private static Instant instant(Row row, String column) {
        OffsetDateTime value = row.getOffsetDateTime(column);
        return value == null ? null : value.toInstant();
    }
}
