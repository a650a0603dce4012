package dev.idempotency.core;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Hex SHA-256, the request fingerprint. */
final class Fingerprints {

    private static final HexFormat HEX = HexFormat.of();

    /**
     * Cloned for each fingerprint: {@code MessageDigest.getInstance} looks the provider up on every
     * call, which showed in the engine's profile; a clone is a plain copy of the initial state.
     */
    private static final MessageDigest SHA_256 = newSha256();

    private Fingerprints() {
    }

    static String sha256Hex(byte[] bytes) {
        return HEX.formatHex(sha256().digest(bytes));
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
