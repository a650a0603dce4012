package dev.idempotency.core;

import java.util.List;

/**
 * Reads the Idempotency-Key header: a bare token, or an RFC 8941 sf-string ({@code "quoted"},
 * with {@code \"} and {@code \\} escapes). After unquoting, a key is 1–255 visible ASCII
 * characters (0x21–0x7E).
 */
final class IdempotencyKeys {

    static final int MAX_LENGTH = 255;

    /** The result of reading the header: a key, nothing, or why it is invalid. */
    sealed interface Parsed {
        record Valid(String key) implements Parsed {
        }

        record Missing() implements Parsed {
        }

        record Invalid(String reason) implements Parsed {
        }
    }

    private IdempotencyKeys() {
    }

    static Parsed parse(List<String> values) {
        if (values.isEmpty()) {
            return new Parsed.Missing();
        }
        if (values.size() > 1) {
            return new Parsed.Invalid("The Idempotency-Key header must appear once");
        }
        String raw = values.get(0).strip();
        if (raw.isEmpty()) {
            return new Parsed.Invalid("The Idempotency-Key header is empty");
        }
        String key = raw.charAt(0) == '"' ? unquote(raw) : raw;
        if (key == null) {
            return new Parsed.Invalid("The Idempotency-Key header is not a valid quoted string");
        }
        if (key.isEmpty() || key.length() > MAX_LENGTH) {
            return new Parsed.Invalid("The Idempotency-Key must be 1 to " + MAX_LENGTH + " characters long");
        }
        if (!isVisibleAscii(key, MAX_LENGTH)) {
            return new Parsed.Invalid("The Idempotency-Key must consist of visible ASCII characters");
        }
        return new Parsed.Valid(key);
    }

    /** RFC 8941 §4.2.5 sf-string; {@code null} when malformed or followed by anything. */
    private static String unquote(String raw) {
        StringBuilder out = new StringBuilder(raw.length());
        for (int i = 1; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '\\') {
                if (++i == raw.length()) {
                    return null;
                }
                char escaped = raw.charAt(i);
                if (escaped != '"' && escaped != '\\') {
                    return null;
                }
                out.append(escaped);
            } else if (c == '"') {
                return i == raw.length() - 1 ? out.toString() : null;
            } else if (c < 0x20 || c > 0x7E) {
                return null;
            } else {
                out.append(c);
            }
        }
        return null; // no closing quote
    }

    /** 1..max characters, each 0x21–0x7E. */
    static boolean isVisibleAscii(String value, int max) {
        if (value.isEmpty() || value.length() > max) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }
}
