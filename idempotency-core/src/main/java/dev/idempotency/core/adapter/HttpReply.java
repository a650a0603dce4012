package dev.idempotency.core.adapter;

import dev.idempotency.core.store.HeaderCodec;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A complete response the engine wants sent instead of running the handler (a replay or a
 * problem), or instead of the handler's own response (the optimistic mode's late replay).
 * Adapters write the status, every header and the body exactly as given.
 *
 * @param status  the HTTP status code
 * @param headers headers to set, {@code Content-Type} included, in order
 * @param body    the exact body bytes
 */
public record HttpReply(int status, Map<String, List<String>> headers, byte[] body) {

    public HttpReply {
        headers = HeaderCodec.copyOf(Objects.requireNonNull(headers, "headers"));
        Objects.requireNonNull(body, "body");
    }

    /** The first value of a header, matched case-insensitively, or {@code null}. */
    public String header(String name) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                return e.getValue().get(0);
            }
        }
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HttpReply other && status == other.status && headers.equals(other.headers)
                && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
        return "HttpReply[status=" + status + ", headers=" + headers + ", body=" + body.length + " bytes]";
    }
}
