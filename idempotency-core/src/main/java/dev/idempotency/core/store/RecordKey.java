package dev.idempotency.core.store;

import java.util.Objects;

/**
 * The namespace of one idempotency record: the same client key means the same request only
 * within one tenant, one HTTP method and one path.
 *
 * @param tenant the tenant the request belongs to (any string the tenant resolver returns)
 * @param method the upper-case HTTP method
 * @param path   the normalized request path, without query string or fragment
 * @param key    the client's Idempotency-Key, unquoted (1–255 visible ASCII characters)
 */
public record RecordKey(String tenant, String method, String path, String key) {

    public RecordKey {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(key, "key");
    }

    /** The first eight characters of the key: all that logs and exceptions ever show of it. */
    public String keyPreview() {
        return preview(key);
    }

    /** The first eight characters of {@code key}, for logs. */
    public static String preview(String key) {
        return key.length() <= 8 ? key : key.substring(0, 8);
    }

    @Override
    public String toString() {
        return "RecordKey[tenant=" + tenant + ", method=" + method + ", path=" + path
                + ", key=" + keyPreview() + "…]";
    }
}
