package dev.idempotency.core.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The namespace of one idempotency record: the same client key means the same request only
 * within one tenant, one caller, one HTTP method and one path.
 *
 * <p>The engine bounds each part ({@link #MAX_TENANT_LENGTH}, {@link #MAX_PATH_LENGTH}, 255 for the
 * key) so that every record key fits the primary key of every shipped table — InnoDB's 3,072
 * bytes and PostgreSQL's B-tree row limit of 2,704 bytes — and a store never sees a key it cannot
 * index; a store may assume these bounds.
 *
 * @param tenant the tenant the request belongs to (any string of at most {@value #MAX_TENANT_LENGTH}
 *               characters the tenant resolver returns)
 * @param caller {@link #ANONYMOUS} ({@code ""}) for a request without an authenticated caller, else
 *               {@link #callerOf(String)} of the caller's name: 32 lower-case hex digits, never the name
 * @param method the upper-case HTTP method
 * @param path   the normalized request path, without query string or fragment, at most
 *               {@value #MAX_PATH_LENGTH} characters
 * @param key    the client's Idempotency-Key, unquoted (1–255 printable ASCII characters)
 */
public record RecordKey(String tenant, String caller, String method, String path, String key) {

    /** The longest tenant the engine accepts from a tenant resolver; a longer one is an unknown tenant (400). */
    public static final int MAX_TENANT_LENGTH = 191;
    /** The longest normalized path the engine keys a record on; a longer one is answered 414. */
    public static final int MAX_PATH_LENGTH = 500;
    /** The caller of a request nobody authenticated, or whose records are shared across callers. */
    public static final String ANONYMOUS = "";
    /** The {@link #preview(String) preview} of a key of at most eight characters. */
    public static final String SHORT_KEY_MASK = "****";

    /**
     * The key {@link Store#check} looks up: no request is ever filed under it (the engine covers no
     * {@code HEALTH} method), and its tenant is a UUID so that it fits a UUID-typed tenant column.
     */
    public static final RecordKey HEALTH_PROBE = new RecordKey("00000000-0000-0000-0000-000000000000", "HEALTH",
            "/", "health-check");

    public RecordKey {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(caller, "caller");
        if (!caller.isEmpty() && !(caller.length() == 32 && caller.chars().allMatch(RecordKey::isLowerHex))) {
            throw new IllegalArgumentException("caller must be empty or RecordKey.callerOf(name)");
        }
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(key, "key");
    }

    /** The record of an {@link #ANONYMOUS} request. */
    public RecordKey(String tenant, String method, String path, String key) {
        this(tenant, ANONYMOUS, method, path, key);
    }

    /**
     * The {@code caller} part for an authenticated caller's name: the first 128 bits of the SHA-256
     * of its UTF-8 bytes, in hex, so that a store never holds the name itself.
     */
    public static String callerOf(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static boolean isLowerHex(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f';
    }

    /** {@link #preview(String)} of the key: all that logs, events and exceptions ever show of it. */
    public String keyPreview() {
        return preview(key);
    }

    /**
     * What logs show of {@code key}, never the whole of it: the first four characters and
     * {@code …} for a key longer than eight characters ({@code 7c9e6679-…} is {@code 7c9e…}),
     * the fixed {@value #SHORT_KEY_MASK} for a shorter one, whose four characters would be half of it.
     */
    public static String preview(String key) {
        return key.length() > 8 ? key.substring(0, 4) + "…" : SHORT_KEY_MASK;
    }

    @Override
    public String toString() {
        return "RecordKey[tenant=" + tenant + (caller.isEmpty() ? "" : ", caller=" + caller.substring(0, 8) + "…")
                + ", method=" + method + ", path=" + path
                + ", key=" + keyPreview() + "]";
    }
}
