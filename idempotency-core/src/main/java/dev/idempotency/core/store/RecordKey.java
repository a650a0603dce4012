package dev.idempotency.core.store;

import java.util.Objects;

/**
 * The namespace of one idempotency record: the same client key means the same request only
 * within one tenant, one HTTP method and one path.
 *
 * <p>The engine bounds each part ({@link #MAX_TENANT_LENGTH}, {@link #MAX_PATH_LENGTH}, 255 for the
 * key) so that every record key fits the primary key of every shipped table — InnoDB's 3,072
 * bytes and PostgreSQL's B-tree row limit of 2,704 bytes — and a store never sees a key it cannot
 * index; a store may assume these bounds.
 *
 * @param tenant the tenant the request belongs to (any string of at most {@value #MAX_TENANT_LENGTH}
 *               characters the tenant resolver returns)
 * @param method the upper-case HTTP method
 * @param path   the normalized request path, without query string or fragment, at most
 *               {@value #MAX_PATH_LENGTH} characters
 * @param key    the client's Idempotency-Key, unquoted (1–255 visible ASCII characters)
 */
public record RecordKey(String tenant, String method, String path, String key) {

    /** The longest tenant the engine accepts from a tenant resolver; a longer one is an unknown tenant (400). */
    public static final int MAX_TENANT_LENGTH = 191;
    /** The longest normalized path the engine keys a record on; a longer one is answered 414. */
    public static final int MAX_PATH_LENGTH = 500;
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
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(key, "key");
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
        return "RecordKey[tenant=" + tenant + ", method=" + method + ", path=" + path
                + ", key=" + keyPreview() + "]";
    }
}
