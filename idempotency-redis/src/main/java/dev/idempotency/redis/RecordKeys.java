package dev.idempotency.redis;

import dev.idempotency.core.store.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The Redis key of a record: {@code <prefix>{<hex SHA-256 of tenant, method, path, key>}}, and for
 * an authenticated caller {@code :<caller>} after it (the 32 hex characters of
 * {@link RecordKey#caller()}). The hash is over the four parts, each preceded by its UTF-8 length,
 * so no two tuples share an encoding; the braces make the digest the key's hash tag, so a record is
 * one key in one cluster slot whatever the prefix and the caller. An anonymous record's key has no
 * suffix, as before callers were part of the key. The parts themselves are also stored in the
 * record, where {@link RecordMapping} checks them on every read.
 */
final class RecordKeys {

    private final String prefix;

    RecordKeys(String prefix) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix must not contain '{' or '}' (the hash tag is the store's)");
        }
    }

    String prefix() {
        return prefix;
    }

    String redisKey(RecordKey key) {
        MessageDigest sha256 = sha256();
        for (String part : new String[] {key.tenant(), key.method(), key.path(), key.key()}) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha256.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
            sha256.update(bytes);
        }
        String tagged = prefix + "{" + HexFormat.of().formatHex(sha256.digest()) + "}";
        return key.caller().isEmpty() ? tagged : tagged + ":" + key.caller();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }
}
