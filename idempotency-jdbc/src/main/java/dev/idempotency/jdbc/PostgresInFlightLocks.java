package dev.idempotency.jdbc;

import dev.idempotency.core.store.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * PostgreSQL, atomic mode: how a duplicate that gave up waiting for an uncommitted first request
 * learns whether that request has the same body, although the row — and the fingerprint in it —
 * is invisible until the first commits.
 *
 * <p>The won branch of the atomic reservation statement ({@link PostgresStatements}) also takes
 * two transaction-scoped shared advisory locks, in the two-{@code int4} form (distinct from the
 * {@code bigint} advisory locks applications usually take):
 * <ul>
 *   <li>{@code (}{@value #KEY_CLASS}{@code , keyLock)} — {@code 0x49444B59}, "IDKY": this key is
 *       held by an uncommitted atomic reservation;</li>
 *   <li>{@code (}{@value #BODY_CLASS}{@code , bodyLock)} — {@code 0x49444244}, "IDBD": … with
 *       this fingerprint.</li>
 * </ul>
 * Both values are the first 32 bits of a SHA-256 over the table, the record key (and the
 * fingerprint), computed here, so they do not depend on the server's hash functions. Nothing else
 * takes these locks, and nobody ever takes them exclusively, so taking them never waits; the commit
 * or rollback drops them. The winner pays no round trip for them: they are two more columns of the
 * statement it sends anyway.
 *
 * <p>The duplicate, after its lock wait ran out and its transaction was rolled back, reads the
 * lock table once ({@link #PROBE}, one round trip, no lock taken, so duplicates never disturb each
 * other) and gets one consistent snapshot of it:
 * <ul>
 *   <li>its own {@code bodyLock} is held: the same body is in flight — answered as today, 409;</li>
 *   <li>else a transaction holds the {@code keyLock} together with another {@code bodyLock}: a
 *       different body is in flight — 422;</li>
 *   <li>else nobody holds the key any more (the first ended between the timeout and the probe, or
 *       the wait was for something else, such as a purge): the caller asks again.</li>
 * </ul>
 * A transaction caught between releasing one of its two locks and the other at its end holds
 * either no {@code keyLock} (nobody: ask again) or no {@code bodyLock} of its own (not counted as
 * a different body), never a false "different body".
 *
 * <p>Hash collisions: a colliding {@code bodyLock} (another key or body whose 32 bits agree) can
 * only make the probe answer "same body", i.e. 409 instead of 422 — never a replay and never 422
 * for the same body. A colliding {@code keyLock} matters only when the first request ended in the
 * one round trip between the timeout and the probe and, at that moment, another key with the same
 * 32 bits is in flight: then a different body gets 422 where asking again would have given the
 * committed answer (422 anyway, if the first committed).
 */
final class PostgresInFlightLocks {

    /** The {@code classid} of the key lock: {@code 0x49444B59}, "IDKY" in ASCII. */
    static final int KEY_CLASS = 1229212505;
    /** The {@code classid} of the key-and-body lock: {@code 0x49444244}, "IDBD" in ASCII. */
    static final int BODY_CLASS = 1229210180;

    /**
     * One snapshot of the lock table ({@code MATERIALIZED}: {@code pg_locks} is read once for both
     * questions), limited to this database's advisory locks of the two classes.
     */
    static final String PROBE = """
            WITH held AS MATERIALIZED (
              SELECT pid, classid, objid FROM pg_locks
              WHERE locktype = 'advisory' AND objsubid = 2 AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND classid IN (%1$d, %2$d))
            SELECT EXISTS (SELECT FROM held WHERE classid = %2$d AND objid = CAST(:body_lock AS int4)::oid) AS same_body,
                   EXISTS (SELECT FROM held k JOIN held b ON b.pid = k.pid AND b.classid = %2$d
                           WHERE k.classid = %1$d AND k.objid = CAST(:key_lock AS int4)::oid) AS key_held"""
            .formatted(KEY_CLASS, BODY_CLASS);

    private static final String PROBE_JDBC = PROBE.replace(":body_lock", "?").replace(":key_lock", "?");

    /** What the probe found. */
    enum Holder {
        /** A transaction holds the key with this request's body (or one whose 32 bits agree). */
        SAME_BODY,
        /** A transaction holds the key with another body. */
        OTHER_BODY,
        /** No atomic reservation holds the key now. */
        NONE
    }

    private final String table;

    /** @param table the table as configured, so that stores on two tables do not share locks */
    PostgresInFlightLocks(String table) {
        this.table = table;
    }

    int keyLock(RecordKey key) {
        return hash(key, null);
    }

    int bodyLock(RecordKey key, String fingerprint) {
        return hash(key, fingerprint);
    }

    /** Runs {@link #PROBE} on {@code c} (in autocommit mode one statement; otherwise rolled back after). */
    Holder probe(Connection c, RecordKey key, String fingerprint) throws SQLException {
        boolean same;
        boolean held;
        try (PreparedStatement ps = c.prepareStatement(PROBE_JDBC)) {
            ps.setInt(1, bodyLock(key, fingerprint));
            ps.setInt(2, keyLock(key));
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
        return same ? Holder.SAME_BODY : held ? Holder.OTHER_BODY : Holder.NONE;
    }

    private int hash(RecordKey key, String fingerprint) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        // Length-prefixed parts: no two different keys give the same input.
        for (String part : new String[] {table, key.tenant(), key.method(), key.path(), key.key(),
                fingerprint == null ? "" : fingerprint}) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha256.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            sha256.update(bytes);
        }
        sha256.update((byte) (fingerprint == null ? 0 : 1));
        return ByteBuffer.wrap(sha256.digest()).getInt();
    }
}
