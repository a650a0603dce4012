package dev.idempotency.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The request fingerprint: the hex SHA-256 of the request's media type and its canonical body, so
 * that a {@code text/plain} body byte-identical to a stored JSON body is another request.
 */
final class Fingerprints {

    private static final HexFormat HEX = HexFormat.of();

    /**
     * Cloned for each fingerprint: {@code MessageDigest.getInstance} looks the provider up on every
     * call, which showed in the engine's profile; a clone is a plain copy of the initial state.
     */
    private static final MessageDigest SHA_256 = newSha256();

    private Fingerprints() {
    }

    /**
     * {@code SHA-256(mediaType 0x00 canonicalBody)}, hex. The media type is the {@code type/subtype}
     * of {@code contentType}, lower-cased, without parameters such as {@code charset} (empty when
     * there is none); a media type never contains a NUL, so the separator is unambiguous.
     */
    static String of(String contentType, byte[] canonicalBody) {
        MessageDigest digest = sha256();
        digest.update(mediaType(contentType).getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
        return HEX.formatHex(digest.digest(canonicalBody));
    }

    /** {@code type/subtype}, lower-cased and trimmed; empty for an absent header. */
    static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
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
