package dev.idempotency.core.store;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A response as stored for replay: status, content type, the allow-listed headers and the body,
 * byte for byte — or, for a success whose body could not be kept (streamed, too large), the rest
 * without the body ({@link #withoutBody}): a retry is then told the request was applied.
 *
 * @param status      the HTTP status code
 * @param contentType the {@code Content-Type} header, or {@code null}
 * @param headers     allow-listed headers in the order they were captured (names as captured)
 * @param body        the exact body bytes; empty when {@code bodyStored} is false
 * @param bodyStored  whether {@code body} is the response's body
 */
public record StoredResponse(int status, String contentType, Map<String, List<String>> headers, byte[] body,
                             boolean bodyStored) {

    /**
     * The longest {@code Content-Type} the engine stores (a response with a longer one is kept
     * without its body); every shipped table's column holds it, MariaDB's {@code VARCHAR(255)} included.
     */
    public static final int MAX_CONTENT_TYPE_LENGTH = 255;

    public StoredResponse {
        headers = HeaderCodec.copyOf(Objects.requireNonNull(headers, "headers"));
        Objects.requireNonNull(body, "body");
        if (!bodyStored && body.length > 0) {
            throw new IllegalArgumentException("a response stored without its body has an empty body");
        }
    }

    /** A response stored whole. */
    public StoredResponse(int status, String contentType, Map<String, List<String>> headers, byte[] body) {
        this(status, contentType, headers, body, true);
    }

    /** A response of which only the status, content type and headers are stored. */
    public static StoredResponse withoutBody(int status, String contentType, Map<String, List<String>> headers) {
        return new StoredResponse(status, contentType, headers, new byte[0], false);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredResponse other
                && status == other.status
                && Objects.equals(contentType, other.contentType)
                && headers.equals(other.headers)
                && Arrays.equals(body, other.body)
                && bodyStored == other.bodyStored;
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, contentType, headers, Arrays.hashCode(body), bodyStored);
    }

    @Override
    public String toString() {
        return "StoredResponse[status=" + status + ", contentType=" + contentType + ", headers="
                + headers.keySet() + ", body=" + (bodyStored ? body.length + " bytes" : "not stored") + "]";
    }
}
