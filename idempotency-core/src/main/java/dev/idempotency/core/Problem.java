package dev.idempotency.core;

import dev.idempotency.core.adapter.HttpReply;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An RFC 9457 problem document: {@code type}, {@code title}, {@code status}, {@code detail} and
 * the extension member {@code code}. Adapters and applications may use it for their own errors
 * so every error a client sees has one shape.
 *
 * @param type   a stable URI naming the problem type
 * @param title  a short summary of the type
 * @param status the HTTP status
 * @param detail what went wrong with this request
 * @param code   the stable snake_case code
 */
public record Problem(String type, String title, int status, String detail, String code) {

    /** The media type of problem documents. */
    public static final String MEDIA_TYPE = "application/problem+json";

    private static final JsonFactory JSON = new JsonFactory();

    public Problem {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(code, "code");
    }

    /** The response: the JSON document, its media type, {@code Cache-Control: no-store}. */
    public HttpReply toReply() {
        return toReply(null);
    }

    /** The response, with {@code Retry-After} (whole seconds, at least 1) when given. */
    public HttpReply toReply(Duration retryAfter) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Content-Type", List.of(MEDIA_TYPE));
        headers.put("Cache-Control", List.of("no-store"));
        if (retryAfter != null) {
            long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
            headers.put("Retry-After", List.of(Long.toString(seconds)));
        }
        return new HttpReply(status, headers, toJson());
    }

    /** The problem document as UTF-8 JSON. */
    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", type);
            g.writeStringField("title", title);
            g.writeNumberField("status", status);
            g.writeStringField("detail", detail);
            g.writeStringField("code", code);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
