package dev.idempotency.sql;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;

/**
 * PostgreSQL, atomic mode: how a duplicate that gave up waiting for an uncommitted first request
 * learns whether that request has the same body, although the row — and the fingerprint in it —
 * is invisible until the first commits.
 *
 * <p>The won branch of the atomic reservation ({@link SqlCatalog.Variant#IN_FLIGHT_LOCKS}) also
 * takes three transaction-scoped shared advisory locks, in the two-{@code int4} form (distinct from
 * the {@code bigint} advisory locks applications usually take), with a {@code classid} of their own:
 * <ul>
 *   <li>1229212488 ({@code 0x49444B48}, "IDKH") and 1229212492 ({@code 0x49444B4C}, "IDKL"), the
 *       two halves of 64 bits of a SHA-256 over the table and the record key: this key is held by
 *       an uncommitted atomic reservation;</li>
 *   <li>1229210180 ({@code 0x49444244}, "IDBD"), 32 bits of a SHA-256 over the table, the record
 *       key and the fingerprint: … with this body.</li>
 * </ul>
 * The hashes are computed here, so they do not depend on the server's hash functions. Nothing but
 * the stores takes locks of these classes and nobody takes them exclusively, so taking them never
 * waits; the commit or rollback drops them. The winner pays no round trip for them: they are three
 * more columns of the statement it sends anyway.
 *
 * <p>The duplicate, after its lock wait ran out and its transaction was rolled back, reads the
 * lock table once (the catalog's {@code inFlightProbe}: one round trip; it takes no lock, so
 * duplicates never disturb each other) and judges one consistent snapshot of it
 * ({@link #holder}): its own body lock is held: the same body is in flight (409); else one backend
 * holds both key locks and a body lock: a different body is in flight (422); else nobody holds the
 * key any more: the caller asks again. A transaction caught at its end between releasing one of
 * its locks and the next lacks a key lock or its body lock and is not counted as a different body.
 *
 * <p>Collisions: a body lock that agrees in its 32 bits with another key's or body's can only make
 * the probe answer "same body": 409 instead of 422 — never a replay, never 422 for the same body.
 * Stores on tables that have the same configured name in different schemas of one database share
 * the locks, as do an application's two-{@code int4} advisory locks that happen to use these classids.
 */
public final class InFlightLocks {

    public static final int KEY_HIGH_CLASS = 1229212488;
    public static final int KEY_LOW_CLASS = 1229212492;
    public static final int BODY_CLASS = 1229210180;

    private final String table;

    /** @param table the table as configured ({@link TableName#label()}), so that stores on two tables do not share locks */
    public InFlightLocks(String table) {
        this.table = table;
    }

    /** The values of the three locks of {@code key} held with {@code fingerprint}, by parameter name. */
    public Map<String, Object> values(RecordKey key, String fingerprint) {
        MessageDigest keyDigest = keyDigest(key);
        MessageDigest bodyDigest = copy(keyDigest, key);
        update(bodyDigest, fingerprint);
        ByteBuffer keyHash = ByteBuffer.wrap(keyDigest.digest());
        Map<String, Object> values = new HashMap<>();
        values.put("key_lock_high", keyHash.getInt(0));
        values.put("key_lock_low", keyHash.getInt(4));
        values.put("body_lock", ByteBuffer.wrap(bodyDigest.digest()).getInt(0));
        return values;
    }

    /** Who holds the key, from the probe's columns {@code same_body} and {@code key_held}. */
    public static Holder holder(boolean sameBody, boolean keyHeld) {
        return sameBody ? Holder.SAME_BODY : keyHeld ? Holder.OTHER_BODY : Holder.NOBODY;
    }

    /** SHA-256 so far over the table and the record key (length-prefixed parts: no two keys give the same input). */
    private MessageDigest keyDigest(RecordKey key) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        for (String part : new String[] {table, key.tenant(), key.caller(), key.method(), key.path(), key.key()}) {
            update(sha256, part);
        }
        return sha256;
    }

    /** A copy of {@code digest}'s state, hashing the key again where the provider cannot copy it. */
    private MessageDigest copy(MessageDigest digest, RecordKey key) {
        try {
            return (MessageDigest) digest.clone();
        } catch (CloneNotSupportedException e) {
            return keyDigest(key);
        }
    }

    private static void update(MessageDigest digest, String part) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        int n = bytes.length;
        digest.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        digest.update(bytes);
    }
}
