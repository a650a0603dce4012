package dev.idempotency.core.adapter;

import dev.idempotency.core.store.HeaderCodec;
import java.util.List;
import java.util.Map;

/**
 * The response a handler produced, as an adapter captured it before it reached the client.
 *
 * @param status  the HTTP status code
 * @param headers the response headers as set (names in any case, order kept)
 * @param body    the exact body bytes, or {@code null} when the adapter could not capture them
 *                (streamed or file responses); a success is then stored without its body
 */
public record CapturedResponse(int status, Map<String, List<String>> headers, byte[] body) {

    public CapturedResponse {
        headers = HeaderCodec.copyOf(headers);
    }

    /** A response whose bytes were captured. */
    public static CapturedResponse of(int status, Map<String, List<String>> headers, byte[] body) {
        return new CapturedResponse(status, headers, java.util.Objects.requireNonNull(body, "body"));
    }

    /** A response whose body could not be captured; a success is stored without it. */
    public static CapturedResponse uncaptured(int status, Map<String, List<String>> headers) {
        return new CapturedResponse(status, headers, null);
    }

    public boolean isCaptured() {
        return body != null;
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

    public String contentType() {
        return header("Content-Type");
    }

    public boolean isSuccessful() {
        return status >= 200 && status < 300;
    }
}
