package dev.idempotency.core.engine;

import java.util.List;

/**
 * Reads the Idempotency-Key header. Two spellings are accepted, and name the same key:
 *
 * <ul>
 *   <li>an RFC 8941 sf-string: {@code "01HXYZ…"}, with {@code \"} and {@code \\} escapes, whose
 *       content is 1–255 printable ASCII characters (0x20–0x7E: a space is allowed, as RFC 8941
 *       allows it, but not a key of spaces only);</li>
 *   <li>a bare key: 1–255 token characters (RFC 9110 {@code tchar}: letters, digits and
 *       {@code !#$%&'*+-.^_`|~}) or {@code :}, {@code /} and {@code =}, so UUIDs, ULIDs and
 *       base64 keys fit. A comma is refused: a proxy that merges two {@code Idempotency-Key} field
 *       lines into one (RFC 9110 §5.3) produces exactly {@code a, b}, and so are the other
 *       delimiters ({@code "(),;<>?@[\]{}}).</li>
 * </ul>
 *
 * <p>Anything else, and a header that appears more than once, is invalid.
 */
public final class IdempotencyKeys {

    static final int MAX_LENGTH = 255;

    /** The visible ASCII characters that are neither tchar nor one of ':', '/', '='. */
    private static final String BARE_DELIMITERS = "\"(),;<>?@[\\]{}";

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
        boolean quoted = raw.charAt(0) == '"';
        String key = quoted ? unquote(raw) : raw;
        if (key == null) {
            return new Parsed.Invalid("The Idempotency-Key header is not a valid quoted string");
        }
        if (key.isEmpty() || key.length() > MAX_LENGTH) {
            return new Parsed.Invalid("The Idempotency-Key must be 1 to " + MAX_LENGTH + " characters long");
        }
        if (quoted ? key.isBlank() : !isVisibleAscii(key, MAX_LENGTH)) {
            return new Parsed.Invalid("The Idempotency-Key must consist of visible ASCII characters");
        }
        if (!quoted && !isBareKey(key)) {
            return new Parsed.Invalid("An unquoted Idempotency-Key may contain only token characters, ':', '/' "
                    + "and '='; quote it as a string (\"…\") to use others — a comma usually means two "
                    + "Idempotency-Key headers were merged");
        }
        return new Parsed.Valid(key);
    }

    /** RFC 8941 §4.2.5 sf-string (0x20–0x7E); {@code null} when malformed or followed by anything. */
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

    /** Token characters (RFC 9110 §5.6.2), ':', '/' and '='; the caller has checked visible ASCII. */
    private static boolean isBareKey(String key) {
        for (int i = 0; i < key.length(); i++) {
            if (BARE_DELIMITERS.indexOf(key.charAt(i)) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** 1..max characters, each 0x21–0x7E. */
    public static boolean isVisibleAscii(String value, int max) {
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
