package dev.idempotency.redis;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Between records and the fields of their hash (see {@link Scripts} for the layout). Text is
 * UTF-8, numbers decimal ASCII, the body its own bytes; instants are epoch microseconds, as
 * precise as the SQL stores keep them.
 */
final class RecordMapping {

    static final String IN_FLIGHT = "I";
    static final String COMPLETED = "C";

    private RecordMapping() {
    }

    /** The field/value pairs of a new in-flight record. */
    static List<byte[]> inFlight(RecordKey key, String fingerprint, String token, Instant leaseUntil, Instant expiresAt) {
        List<byte[]> fields = common(key, fingerprint, token, IN_FLIGHT, expiresAt);
        add(fields, "v", text(Integer.toString(HeaderCodec.FORMAT_VERSION)));
        add(fields, "lease", text(micros(leaseUntil)));
        return fields;
    }

    /** The field/value pairs of a new completed record. */
    static List<byte[]> completed(RecordKey key, String fingerprint, String token, StoredResponse response,
                                  Instant expiresAt) {
        List<byte[]> fields = common(key, fingerprint, token, COMPLETED, expiresAt);
        fields.addAll(response(response));
        return fields;
    }

    /** The field/value pairs a completion adds to its in-flight record. */
    static List<byte[]> response(StoredResponse response) {
        List<byte[]> fields = new ArrayList<>(10);
        add(fields, "v", text(Integer.toString(HeaderCodec.formatVersion(response))));
        add(fields, "status", text(Integer.toString(response.status())));
        add(fields, "hdr", text(HeaderCodec.encode(response.headers())));
        fields.add(text("body"));
        fields.add(response.body());
        if (response.contentType() != null) {
            add(fields, "ct", text(response.contentType()));
        }
        return fields;
    }

    /**
     * The record in a flat HGETALL answer from {@code offset} on.
     *
     * @throws IllegalStateException when the hash belongs to another key (a SHA-256 collision, a
     *         caller stored where none was asked for) or is malformed
     */
    static IdempotencyRecord record(RecordKey key, List<?> reply, int offset) {
        Map<String, byte[]> hash = new HashMap<>();
        for (int i = offset; i + 1 < reply.size(); i += 2) {
            hash.put(string((byte[]) reply.get(i)), (byte[]) reply.get(i + 1));
        }
        int version = Integer.parseInt(required(hash, "v"));
        byte[] caller = hash.get("c"); // absent: anonymous, as every record written before callers were stored
        RecordKey stored;
        try {
            stored = new RecordKey(required(hash, "t"), caller == null ? RecordKey.ANONYMOUS : string(caller),
                    required(hash, "m"), required(hash, "p"), required(hash, "k"));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Malformed Redis idempotency record: field 'c' is no caller");
        }
        if (!stored.equals(key)) {
            throw new IllegalStateException("The Redis record for " + key + " holds another key, " + stored);
        }
        String fingerprint = required(hash, "fp");
        Instant expiresAt = instant(required(hash, "exp"));
        if (IN_FLIGHT.equals(required(hash, "st"))) {
            return new IdempotencyRecord(key, fingerprint, RecordState.IN_FLIGHT, null, expiresAt,
                    instant(required(hash, "lease")));
        }
        byte[] contentType = hash.get("ct");
        StoredResponse response = HeaderCodec.response(Integer.parseInt(required(hash, "status")),
                contentType == null ? null : string(contentType), required(hash, "hdr"), hash.get("body"), version);
        return new IdempotencyRecord(key, fingerprint, RecordState.COMPLETED, response, expiresAt, null);
    }

    /** Epoch microseconds, the precision records keep. */
    static long micros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    /** The millisecond for PEXPIREAT: the first one at or after {@code instant}, so Redis never drops a live record. */
    static long expireAtMillis(Instant instant) {
        return -Math.floorDiv(-micros(instant), 1_000L);
    }

    static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] text(long value) {
        return text(Long.toString(value));
    }

    private static List<byte[]> common(RecordKey key, String fingerprint, String token, String state, Instant expiresAt) {
        List<byte[]> fields = new ArrayList<>(24);
        add(fields, "t", text(key.tenant()));
        if (!key.caller().isEmpty()) {
            add(fields, "c", text(key.caller()));
        }
        add(fields, "m", text(key.method()));
        add(fields, "p", text(key.path()));
        add(fields, "k", text(key.key()));
        add(fields, "fp", text(fingerprint));
        add(fields, "st", text(state));
        add(fields, "own", text(token));
        add(fields, "exp", text(micros(expiresAt)));
        return fields;
    }

    private static void add(List<byte[]> fields, String name, byte[] value) {
        fields.add(text(name));
        fields.add(value);
    }

    private static String required(Map<String, byte[]> hash, String field) {
        byte[] value = hash.get(field);
        if (value == null) {
            throw new IllegalStateException("Malformed Redis idempotency record: no field '" + field + "'");
        }
        return string(value);
    }

    private static Instant instant(String micros) {
        long value = Long.parseLong(micros);
        return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1_000L);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
