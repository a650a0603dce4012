package dev.idempotency.sql;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Values in and records out, for every SQL store: the values of a statement's parameters by name,
 * and the record a row of the record columns describes, read through {@link Columns}, which each
 * store adapts to its driver's row in a few lines.
 *
 * <p>Times are the engine's, truncated to microseconds (the precision of every supported column
 * type), so the database's own clock never takes part. {@code caller} is bound as the bytes
 * {@link RecordKey#caller()}'s hex digits spell, none for an anonymous caller.
 */
public final class Records {

    public static final String IN_FLIGHT = "IN_FLIGHT";
    public static final String COMPLETED = "COMPLETED";

    /** Every column, the primary key's first in its order. */
    public static final List<String> COLUMNS = List.of("key", "tenant_id", "caller", "method", "path", "request_hash",
            "state", "owner_token", "locked_until", "response_status", "response_content_type", "response_headers",
            "response_body", "format_version", "expires_at", "created_at");

    /** One row of a result, by column name; a store adapts its driver's row. */
    public interface Columns {
        String text(String column);

        Short int2(String column);

        byte[] bytes(String column);

        /** A time column, or {@code null}. */
        Instant instant(String column);
    }

    private Records() {
    }

    /** The time a statement compares against or stores: the engine's, at microsecond precision. */
    public static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    /** The value bound as {@code caller}: the bytes {@code key}'s caller spells in hex; none when anonymous. */
    public static byte[] callerBytes(RecordKey key) {
        return HexFormat.of().parseHex(key.caller());
    }

    /** The values of the primary-key parameters. */
    public static Map<String, Object> keyValues(RecordKey k) {
        Map<String, Object> values = new HashMap<>();
        values.put("key", k.key());
        values.put("tenant_id", k.tenant());
        values.put("caller", callerBytes(k));
        values.put("method", k.method());
        values.put("path", k.path());
        return values;
    }

    /** The values of an owner-checked statement (release; complete and renew add theirs). */
    public static Map<String, Object> ownerValues(RecordKey key, String ownerToken) {
        Map<String, Object> values = keyValues(key);
        values.put("owner_token", ownerToken);
        return values;
    }

    /** The values of every column parameter for {@code row}, and {@code now}. */
    public static Map<String, Object> rowValues(NewRow row, Instant now) {
        Map<String, Object> values = keyValues(row.key());
        StoredResponse response = row.response();
        values.put("request_hash", row.fingerprint());
        values.put("state", row.state());
        values.put("owner_token", row.ownerToken());
        values.put("locked_until", row.lockedUntil());
        values.put("response_status", response == null ? null : (short) response.status());
        values.put("response_content_type", response == null ? null : response.contentType());
        values.put("response_headers", response == null ? null : HeaderCodec.encode(response.headers()));
        values.put("response_body", response == null ? null : response.body());
        values.put("format_version", (short) (response == null ? HeaderCodec.FORMAT_VERSION
                : HeaderCodec.formatVersion(response)));
        values.put("expires_at", row.expiresAt());
        values.put("created_at", row.createdAt());
        values.put("now", now);
        return values;
    }

    /** The values of the completion's UPDATE. */
    public static Map<String, Object> completeValues(RecordKey key, String ownerToken, StoredResponse response) {
        Map<String, Object> values = ownerValues(key, ownerToken);
        values.put("response_status", (short) response.status());
        values.put("response_content_type", response.contentType());
        values.put("response_headers", HeaderCodec.encode(response.headers()));
        values.put("response_body", response.body());
        values.put("format_version", (short) HeaderCodec.formatVersion(response));
        return values;
    }

    /** The values of the renewal's UPDATE: the lease runs to {@code lockedUntil} (truncated here). */
    public static Map<String, Object> renewValues(RecordKey key, String ownerToken, Instant lockedUntil) {
        Map<String, Object> values = ownerValues(key, ownerToken);
        values.put("locked_until", micros(lockedUntil));
        return values;
    }

    /** The record of {@code key} a row holding the record columns describes (the row was found by the whole key). */
    public static IdempotencyRecord read(RecordKey key, Columns row) {
        String state = row.text("state");
        Instant expires = row.instant("expires_at");
        String fingerprint = row.text("request_hash");
        if (COMPLETED.equals(state)) {
            StoredResponse response = HeaderCodec.response(row.int2("response_status"),
                    row.text("response_content_type"), row.text("response_headers"),
                    row.bytes("response_body"), row.int2("format_version"));
            return new IdempotencyRecord(key, fingerprint, RecordState.COMPLETED, response, expires, null);
        }
        if (IN_FLIGHT.equals(state)) {
            return new IdempotencyRecord(key, fingerprint, RecordState.IN_FLIGHT, null, expires,
                    row.instant("locked_until"));
        }
        throw new IllegalStateException("Unknown record state '" + state + "' for " + key);
    }

    /**
     * Whether a record blocks a reservation: completed and not expired, or in flight under a lease
     * that still runs.
     */
    public static boolean isLive(IdempotencyRecord record, Instant now) {
        return record.isCompleted() ? record.expiresAt().isAfter(now) : record.leaseUntil().isAfter(now);
    }

    /**
     * From the newest version of the key's row, committed or not (a dirty read): whose body holds
     * the key. A row that is not live holds nothing (a rolled-back take-over leaves the old one). A
     * completed row with this body may still roll back, so it is no replay: it is
     * {@link Holder#COMPLETING}, and asking again answers from committed data.
     */
    public static Holder holderOf(Optional<IdempotencyRecord> newest, String fingerprint, Instant now) {
        if (newest.isEmpty() || !isLive(newest.get(), now)) {
            return Holder.NOBODY;
        }
        IdempotencyRecord record = newest.get();
        if (!record.fingerprint().equals(fingerprint)) {
            return Holder.OTHER_BODY;
        }
        return record.isCompleted() ? Holder.COMPLETING : Holder.SAME_BODY;
    }
}
