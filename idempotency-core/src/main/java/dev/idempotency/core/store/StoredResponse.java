package dev.idempotency.core.store;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A response as stored for replay: status, content type, the allow-listed headers and the body,
 * byte for byte.
 *
 * @param status      the HTTP status code
 * @param contentType the {@code Content-Type} header, or {@code null}
 * @param headers     allow-listed headers in the order they were captured (names as captured)
 * @param body        the exact body bytes
 */
public record StoredResponse(int status, String contentType, Map<String, List<String>> headers, byte[] body) {

    /**
     * The longest {@code Content-Type} the engine stores (a response with a longer one is sent but
     * not stored); every shipped table's column holds it, MariaDB's {@code VARCHAR(255)} included.
     */
    public static final int MAX_CONTENT_TYPE_LENGTH = 255;

    public StoredResponse {
        headers = HeaderCodec.copyOf(Objects.requireNonNull(headers, "headers"));
        Objects.requireNonNull(body, "body");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredResponse other
                && status == other.status
                && Objects.equals(contentType, other.contentType)
                && headers.equals(other.headers)
                && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, contentType, headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
        return "StoredResponse[status=" + status + ", contentType=" + contentType + ", headers="
                + headers.keySet() + ", body=" + body.length + " bytes]";
    }
}
