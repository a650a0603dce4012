package dev.idempotency.core.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
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

    /**
     * Encodes headers as a JSON array of name/value pairs: {@code "} and {@code \\} escaped with a
     * backslash, control characters as {@code \\b \\t \\n \\f \\r} or {@code \\u00XX}, everything
     * else as it is (the text Jackson's generator writes).
     */
    public static String encode(Map<String, List<String>> headers) {
        StringBuilder out = new StringBuilder(64);
        out.append('[');
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            for (String value : e.getValue()) {
                if (out.length() > 1) {
                    out.append(',');
                }
                out.append('[');
                appendString(out, e.getKey());
                out.append(',');
                appendString(out, value);
                out.append(']');
            }
        }
        return out.append(']').toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private static void appendString(StringBuilder out, String s) {
        out.append('"');
        int plain = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(s, plain, i).append('\\');
            switch (c) {
                case '"', '\\' -> out.append(c);
                case '\b' -> out.append('b');
                case '\t' -> out.append('t');
                case '\n' -> out.append('n');
                case '\f' -> out.append('f');
                case '\r' -> out.append('r');
                default -> out.append("u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
            plain = i + 1;
        }
        out.append(s, plain, s.length()).append('"');
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
