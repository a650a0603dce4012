package dev.idempotency.core.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text form in which stores keep a {@link StoredResponse}'s headers: a JSON array of
 * {@code [name, value]} pairs in capture order, e.g. {@code [["Location","/orders/7"]]}. Stores
 * write {@link #formatVersion} beside it so later releases can still read old rows, and read a
 * stored response back with {@link #response}.
 */
public final class HeaderCodec {

    /** The stored record format of a whole response. */
    public static final int FORMAT_VERSION = 1;

    /**
     * The stored record format of a response kept without its body (its body column is empty).
     * A release that knows only version 1 refuses such a record rather than replay an empty body.
     */
    public static final int WITHOUT_BODY_FORMAT_VERSION = 2;

    private static final JsonFactory JSON = new JsonFactory();

    private HeaderCodec() {
    }

    /** Encodes headers as a JSON array of name/value pairs. */
    public static String encode(Map<String, List<String>> headers) {
        StringWriter out = new StringWriter(64);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                for (String value : e.getValue()) {
                    g.writeStartArray();
                    g.writeString(e.getKey());
                    g.writeString(value);
                    g.writeEndArray();
                }
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** The format version to store beside {@code response}. */
    public static int formatVersion(StoredResponse response) {
        return response.bodyStored() ? FORMAT_VERSION : WITHOUT_BODY_FORMAT_VERSION;
    }

    /**
     * The stored response a record's columns describe.
     *
     * @param headers       what {@link #encode} wrote
     * @param body          the body column ({@code null} reads as empty)
     * @param formatVersion the version stored beside them
     * @throws IllegalArgumentException for an unknown version or malformed headers
     */
    public static StoredResponse response(int status, String contentType, String headers, byte[] body,
                                          int formatVersion) {
        Map<String, List<String>> decoded = decode(headers, formatVersion);
        return formatVersion == WITHOUT_BODY_FORMAT_VERSION
                ? StoredResponse.withoutBody(status, contentType, decoded)
                : new StoredResponse(status, contentType, decoded, body == null ? new byte[0] : body);
    }

    /**
     * Decodes what {@link #encode} wrote.
     *
     * @param formatVersion the version stored beside the text
     * @throws IllegalArgumentException for an unknown version or malformed text
     */
    public static Map<String, List<String>> decode(String text, int formatVersion) {
        if (formatVersion != FORMAT_VERSION && formatVersion != WITHOUT_BODY_FORMAT_VERSION) {
            throw new IllegalArgumentException("Unknown stored record format version " + formatVersion);
        }
        if (text == null || text.isEmpty()) {
            return Map.of();
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(text)) {
            expect(p.nextToken(), JsonToken.START_ARRAY);
            while (p.nextToken() == JsonToken.START_ARRAY) {
                expect(p.nextToken(), JsonToken.VALUE_STRING);
                String name = p.getText();
                expect(p.nextToken(), JsonToken.VALUE_STRING);
                headers.computeIfAbsent(name, n -> new ArrayList<>()).add(p.getText());
                expect(p.nextToken(), JsonToken.END_ARRAY);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("Malformed stored headers", e);
        }
        return copyOf(headers);
    }

    /** An immutable, order-keeping copy of a header map. */
    public static Map<String, List<String>> copyOf(Map<String, List<String>> headers) {
        if (headers.isEmpty()) {
            return Map.of();
        }
        Map<String, List<String>> copy = new LinkedHashMap<>();
        headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
        return Collections.unmodifiableMap(copy);
    }

    private static void expect(JsonToken actual, JsonToken expected) {
        if (actual != expected) {
            throw new IllegalArgumentException("Malformed stored headers: expected " + expected + " but got " + actual);
        }
    }
}
