package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * PostgreSQL, atomic mode: how a duplicate that gave up waiting for an uncommitted first request
 * learns whether that request has the same body, although the row — and the fingerprint in it —
 * is invisible until the first commits.
 *
 * <p>The won branch of the atomic reservation statement ({@link PostgresStatements}) also takes
 * three transaction-scoped shared advisory locks, in the two-{@code int4} form (distinct from the
 * {@code bigint} advisory locks applications usually take), with a {@code classid} of their own:
 * <ul>
 *   <li>{@value #KEY_HIGH_CLASS} ({@code 0x49444B48}, "IDKH") and {@value #KEY_LOW_CLASS}
 *       ({@code 0x49444B4C}, "IDKL"), the two halves of 64 bits of a SHA-256 over the table and
 *       the record key: this key is held by an uncommitted atomic reservation;</li>
 *   <li>{@value #BODY_CLASS} ({@code 0x49444244}, "IDBD"), 32 bits of a SHA-256 over the table,
 *       the record key and the fingerprint: … with this body.</li>
 * </ul>
 * The hashes are computed here, so they do not depend on the server's hash functions. Nothing but
 * this store takes locks of these classes and nobody takes them exclusively, so taking them never
 * waits; the commit or rollback drops them. The winner pays no round trip for them: they are three
 * more columns of the statement it sends anyway.
 *
 * <p>The duplicate, after its lock wait ran out and its transaction was rolled back, reads the
 * lock table once ({@link #PROBE}: one round trip; it takes no lock, so duplicates never disturb
 * each other) and judges one consistent snapshot of it:
 * <ul>
 *   <li>its own body lock is held: the same body is in flight (409);</li>
 *   <li>else one backend holds both key locks and a body lock: a different body is in flight
 *       (422);</li>
 *   <li>else nobody holds the key any more (the first ended between the timeout and the probe, or
 *       the wait was for something else, such as a purge): the caller asks again.</li>
 * </ul>
 * A transaction caught at its end between releasing one of its locks and the next lacks a key lock
 * or its body lock in the snapshot and is not counted as a different body.
 *
 * <p>Collisions: a body lock that agrees in its 32 bits with another key's or body's can only make
 * the probe answer "same body": 409 instead of 422 — never a replay, never 422 for the same body.
 * A false "different body" would need 64 bits of another in-flight key to agree. Stores on tables
 * that have the same configured name in different schemas of one database share the locks, as do
 * an application's two-{@code int4} advisory locks that happen to use these classids.
 * <p>Internal, not API: may change without notice.
 */
public final class PostgresInFlightLocks {

    /** The {@code classid} of the key lock's first 32 bits: {@code 0x49444B48}, "IDKH" in ASCII. */
    public static final int KEY_HIGH_CLASS = 1229212488;
    /** The {@code classid} of the key lock's next 32 bits: {@code 0x49444B4C}, "IDKL" in ASCII. */
    public static final int KEY_LOW_CLASS = 1229212492;
    /** The {@code classid} of the key-and-body lock: {@code 0x49444244}, "IDBD" in ASCII. */
    public static final int BODY_CLASS = 1229210180;

    /**
     * One snapshot of the lock table ({@code MATERIALIZED}: {@code pg_locks} is read once for both
     * questions), limited to this database's advisory locks of the three classes.
     */
    static final String PROBE = """
            WITH held AS MATERIALIZED (
              SELECT pid, classid, objid FROM pg_locks
              WHERE locktype = 'advisory' AND objsubid = 2 AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND classid IN (%1$d, %2$d, %3$d))
            SELECT EXISTS (SELECT FROM held WHERE classid = %3$d AND objid = CAST(:body_lock AS int4)::oid) AS same_body,
                   EXISTS (SELECT FROM held h
                           JOIN held l ON l.pid = h.pid AND l.classid = %2$d AND l.objid = CAST(:key_lock_low AS int4)::oid
                           JOIN held b ON b.pid = h.pid AND b.classid = %3$d
                           WHERE h.classid = %1$d AND h.objid = CAST(:key_lock_high AS int4)::oid) AS key_held"""
            .formatted(KEY_HIGH_CLASS, KEY_LOW_CLASS, BODY_CLASS);

    /** {@link #PROBE} for JDBC: its parameters in the order they appear. */
    private static final String PROBE_JDBC = PROBE.replace(":body_lock", "?").replace(":key_lock_low", "?")
            .replace(":key_lock_high", "?");

    /** The three lock values of one row: bound into the atomic reservation, compared by the probe. */
    record Values(int keyHigh, int keyLow, int body) {
    }

    private final String table;

    /** @param table the table as configured, so that stores on two tables do not share locks */
    PostgresInFlightLocks(String table) {
        this.table = table;
    }

    Values of(RecordKey key, String fingerprint) {
        MessageDigest keyDigest = keyDigest(key);
        MessageDigest bodyDigest = copy(keyDigest, key);
        update(bodyDigest, fingerprint);
        ByteBuffer keyHash = ByteBuffer.wrap(keyDigest.digest());
        return new Values(keyHash.getInt(0), keyHash.getInt(4), ByteBuffer.wrap(bodyDigest.digest()).getInt(0));
    }

    /** Runs {@link #PROBE} on {@code c} (in autocommit mode one statement; otherwise rolled back after). */
    AtomicAttempt.Holder probe(Connection c, RecordKey key, String fingerprint) throws SQLException {
        Values values = of(key, fingerprint);
        boolean same;
        boolean held;
        try (PreparedStatement ps = c.prepareStatement(PROBE_JDBC)) {
            ps.setInt(1, values.body());
            ps.setInt(2, values.keyLow());
            ps.setInt(3, values.keyHigh());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                same = rs.getBoolean("same_body");
                held = rs.getBoolean("key_held");
            }
        } finally {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        }
        return PostgresSql.inFlightHolder(same, held);
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
