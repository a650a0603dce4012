package dev.idempotency.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The in-flight lock numbers are seen by every instance of a service at once (a rolling upgrade
 * runs two releases side by side), so they must stay what they were: checked here against the
 * definition — SHA-256 over length-prefixed UTF-8 parts (table, tenant, caller, method, path, key),
 * its first 64 bits the key's locks; with the fingerprint added, its first 32 bits the body's.
 */
class InFlightLocksValuesTest {

    @Test
    void lockNumbersFollowTheirDefinition() throws Exception {
        InFlightLocks locks = new InFlightLocks("public.idempotency_keys");
        String[][] cases = {
                {"public", "", "POST", "/orders", "k1", "sha256:abc"},
                {"t\u00e9nant", "caller-7", "PUT", "/\u20ac/x", "key with spaces", "raw:0123"},
                {"", "", "POST", "/", "k", ""},
        };
        for (String[] c : cases) {
            RecordKey key = new RecordKey(c[0], c[1].isEmpty() ? "" : RecordKey.callerOf(c[1]), c[2], c[3], c[4]);
            byte[] keyHash = sha256("public.idempotency_keys", c[0], key.caller(), c[2], c[3], c[4]);
            byte[] bodyHash = sha256("public.idempotency_keys", c[0], key.caller(), c[2], c[3], c[4], c[5]);
            Map<String, Object> values = locks.values(key, c[5]);
            assertThat(values.get("key_lock_high")).isEqualTo(ByteBuffer.wrap(keyHash).getInt(0));
            assertThat(values.get("key_lock_low")).isEqualTo(ByteBuffer.wrap(keyHash).getInt(4));
            assertThat(values.get("body_lock")).isEqualTo(ByteBuffer.wrap(bodyHash).getInt(0));
        }
    }

    private static byte[] sha256(String... parts) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (String part : parts) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            digest.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            digest.update(bytes);
        }
        return digest.digest();
    }
}
