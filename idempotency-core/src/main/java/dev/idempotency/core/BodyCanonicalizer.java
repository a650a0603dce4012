package dev.idempotency.core;

import dev.idempotency.core.canonical.JsonCanonicalizer;

/**
 * Turns a request body into the bytes its fingerprint is computed from, so that two bodies that
 * mean the same request hash the same.
 *
 * <p>Contract: the method is a pure function of its arguments, thread-safe, and never throws for
 * malformed input — a body it cannot canonicalize is returned as it came (raw bytes), so it is
 * still fingerprinted byte for byte. The engine computes {@code SHA-256(canonicalize(body))}.
 */
@FunctionalInterface
public interface BodyCanonicalizer {

    /**
     * @param body        the raw request body, never {@code null} (empty when there was none)
     * @param contentType the request's {@code Content-Type} header, or {@code null} when absent
     * @return the canonical bytes; may be {@code body} itself
     */
    byte[] canonicalize(byte[] body, String contentType);

    /**
     * The default: a canonical form that two JSON bodies share only when every mainstream JSON
     * reader reads the same values from them — so a retry is matched however its client spaced
     * and ordered it, and a different request is never taken for a retry of another.
     * <ul>
     *   <li>object members sorted by name (UTF-16 code units, at every level); members of the same
     *       name are all kept, in the order they came — {@code {"a":1,"a":2}}, {@code {"a":2,"a":1}}
     *       and {@code {"a":2}} are three requests, since readers differ on which duplicate wins;
     *   <li>array order kept, insignificant whitespace dropped;
     *   <li>strings in one form: escapes resolved ({@code "\u0041"} is {@code "A"},
     *       {@code "\/"} is {@code "/"}), then written as RFC 8785 does — UTF-8, only the quote,
     *       the backslash and the controls escaped;
     *   <li>numbers kept exactly as written, never converted to a double: {@code 1}, {@code 1.0} and
     *       {@code 1e0} are different requests, and so are {@code 12345678901234567890} and
     *       {@code 12345678901234567891}, or {@code 0.1} and {@code 0.10000000000000000001}, which a
     *       double cannot tell apart but a handler reading {@code BigDecimal}s can.
     * </ul>
     *
     * <p>Returned as they came, to be hashed as raw bytes: bodies whose content type is not JSON;
     * the empty body; and bodies that are not exactly one strict RFC 8259 JSON value (no comments,
     * single quotes, {@code NaN}, leading zeros or trailing commas; {@code 1 2} is two values) in
     * well-formed UTF-8 (RFC 3629: no overlong forms, encoded surrogates or code points above
     * U+10FFFF; no byte order mark, so UTF-16 and UTF-32 bodies are raw too), without an unpaired
     * surrogate escape such as {@code "\ud800"}, and within Jackson's default stream limits:
     * at most 1,000 levels of nesting, 1,000 digits per number, 50,000 UTF-16 units per member name
     * and 20,000,000 per string.
     *
     * <p>Both JSON canonicalizers read the body with jackson-core's parser and write the canonical
     * form with its generator.
     */
    static BodyCanonicalizer sortedJson() {
        return JsonCanonicalizer.SORTED_JSON;
    }

    /**
     * RFC 8785, the JSON Canonicalization Scheme, exactly: as {@link #sortedJson()}, except that
     * every number is read as an IEEE-754 double and written as ECMAScript does, and that a body
     * with duplicate member names is returned raw (as is one with a number beyond the double
     * range, such as {@code 1e400}). Use it where the fingerprint has to agree with another RFC 8785
     * implementation, knowing which different bodies it equates — those whose numbers differ only in
     * ways a double cannot hold:
     * <ul>
     *   <li>spellings of one value: {@code 1}, {@code 1.0}, {@code 1e0}, {@code 10E-1}; {@code -0}
     *       and {@code 0};
     *   <li>integers beyond 2<sup>53</sup> that round to the same double: {@code 9007199254740993}
     *       and {@code 9007199254740992}, {@code 12345678901234567890} and
     *       {@code 12345678901234567891};
     *   <li>decimals beyond 17 significant digits: {@code 0.1} and {@code 0.10000000000000000001};
     * </ul>
     * a handler that reads such a number exactly (a {@code BigDecimal}, a big integer, the literal)
     * sees two requests where the fingerprint sees one, and the second gets the first one's
     * response replayed. Like {@code sortedJson()} it also equates member order, whitespace and the
     * spelling of strings ({@code "\u0041"} and {@code "A"}), which no reader can tell apart.
     */
    static BodyCanonicalizer jcs() {
        return JsonCanonicalizer.JCS;
    }

    /** No canonicalization: the fingerprint is the SHA-256 of the raw bytes. */
    static BodyCanonicalizer rawBytes() {
        return (body, contentType) -> body;
    }

    /**
     * Whether a content type should be tried as JSON: absent, {@code application/json}, or any
     * {@code +json} / {@code -json} structured suffix.
     */
    static boolean looksLikeJson(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return true;
        }
        int semicolon = contentType.indexOf(';');
        String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
        return mediaType.regionMatches(true, 0, "application/json", 0, 16) && mediaType.length() == 16
                || mediaType.toLowerCase(java.util.Locale.ROOT).endsWith("+json")
                || mediaType.toLowerCase(java.util.Locale.ROOT).endsWith("-json");
    }
}
