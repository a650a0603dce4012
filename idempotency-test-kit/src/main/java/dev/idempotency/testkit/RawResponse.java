package dev.idempotency.testkit;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An HTTP response as read off the wire by the suites' raw client; header names compare
 * case-insensitively.
 */
public record RawResponse(String statusLine, int status, Map<String, List<String>> headers, byte[] body) {

    public Optional<String> header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** Whether the engine answered from a stored record ({@code Idempotent-Replayed: true}). */
    public boolean replayed() {
        return header("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    public boolean successful() {
        return status >= 200 && status < 300;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Status, replay flag and the start of the body, for failure messages. */
    @Override
    public String toString() {
        String text = bodyText().replaceAll("\\s+", " ");
        return status + (replayed() ? " replayed" : "") + " " + (text.length() > 120 ? text.substring(0, 120) + "…" : text);
    }
}
