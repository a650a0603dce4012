package dev.idempotency.core.engine;

import dev.idempotency.core.BodyCanonicalizer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The request fingerprint: the hex SHA-256 of the request's query string, its media type and its
 * canonical body, so that {@code ?dryRun=true} is another request than none, a {@code text/plain}
 * body byte-identical to a stored JSON body is another request, and so is the same
 * {@code text/plain} bytes in another charset.
 */
final class Fingerprints {

    private static final HexFormat HEX = HexFormat.of();

    /** Cloned for each fingerprint: cheaper than {@code MessageDigest.getInstance}'s provider look-up. */
    private static final MessageDigest SHA_256 = newSha256();

    private Fingerprints() {
    }

    /** A byte that UTF-8 never contains, so it cannot be confused with a query or a media type. */
    private static final byte QUERY_MARK = (byte) 0xFF;

    /**
     * {@code SHA-256(mediaType 0x00 canonicalBody)}, hex, for a request without a query (or with an
     * empty one); {@code SHA-256(0xFF query 0xFF mediaType 0x00 canonicalBody)} for one with a query,
     * taken raw, as the client sent it: a retry sends the same bytes. The media type is the {@code type/subtype}
     * of {@code contentType}, lower-cased (empty when there is none), and — for a type that is not
     * JSON — its {@code charset}, lower-cased: the same bytes are other text in another charset.
     * JSON is UTF-8 whatever a parameter says (RFC 8259), so its parameters are left out. A media
     * type never contains a NUL, so the separator is unambiguous.
     */
    static String of(String query, String contentType, byte[] canonicalBody) {
        MessageDigest digest = sha256();
        if (query != null && !query.isEmpty()) {
            digest.update(QUERY_MARK);
            digest.update(query.getBytes(StandardCharsets.UTF_8));
            digest.update(QUERY_MARK);
        }
        digest.update(mediaType(contentType).getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
        return HEX.formatHex(digest.digest(canonicalBody));
    }

    /** {@code type/subtype}, plus {@code ;charset=…} for a type that is not JSON; empty for an absent header. */
    static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        String[] parts = contentType.split(";");
        String type = parts[0].strip().toLowerCase(Locale.ROOT);
        if (BodyCanonicalizer.looksLikeJson(type)) {
            return type;
        }
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip();
            if (parameter.regionMatches(true, 0, "charset=", 0, 8)) {
                String charset = parameter.substring(8).strip();
                if (charset.length() >= 2 && charset.startsWith("\"") && charset.endsWith("\"")) {
                    charset = charset.substring(1, charset.length() - 1);
                }
                return type + ";charset=" + charset.toLowerCase(Locale.ROOT);
            }
        }
        return type;
    }

    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException notCloneable) {
            return newSha256(); // a provider whose digest cannot be cloned
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
    }
}
