package dev.idempotency.core;

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
     * The default: JSON bodies with object members sorted by key (recursively, UTF-16 code-unit
     * order), array order kept, insignificant whitespace dropped, numbers read as IEEE-754
     * doubles and written as ECMAScript does ({@code 1.0} and {@code 1} are the same) and the
     * last of duplicate keys winning — the behaviour of {@code JSON.stringify} over a key-sorted
     * {@code JSON.parse}, and the RFC 8785 form except that duplicates are tolerated. Bodies whose
     * content type is not JSON, and bodies that do not parse, are hashed as raw bytes — as are
     * bodies beyond Jackson's default stream limits: nesting deeper than 1,000 levels, a number of
     * more than 1,000 digits, a member name longer than 50,000 or a string longer than 20,000,000
     * UTF-16 units.
     *
     * <p>Both JSON canonicalizers read the body once, as UTF-8 bytes, and write the canonical form
     * as they go; on the order bodies of the project's benchmark they run at about the speed of a
     * plain Jackson {@code readTree} of the same bytes.
     */
    static BodyCanonicalizer sortedJson() {
        return JsonCanonicalizer.SORTED_JSON;
    }

    /**
     * RFC 8785 JSON Canonicalization Scheme: ECMAScript number formatting, the RFC's string
     * escaping, members sorted by UTF-16 code units. Bodies that are not JSON, do not parse, exceed
     * the limits of {@link #sortedJson()}, or carry duplicate member names are hashed as raw bytes.
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
