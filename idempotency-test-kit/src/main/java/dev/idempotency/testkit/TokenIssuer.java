package dev.idempotency.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * An issuer of HS256-signed JWTs for an adapter's test of its framework's real token
 * authentication: the framework verifies them with {@link #key()} (or {@link #secret()}), the test
 * sends {@link #bearer}'s {@code Authorization} values.
 *
 * @param issuer the {@code iss} claim of every token
 * @param secret the HMAC secret, at least 32 bytes as HS256 verifiers require
 */
public record TokenIssuer(String issuer, String secret) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    /** The secret as an HMAC-SHA256 key. */
    public SecretKey key() {
        return new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    /** {@code Bearer} and a token with these claims, {@code iss}, and {@code iat}/{@code exp} (valid for an hour). */
    public String bearer(Map<String, String> claims) {
        Map<String, Object> all = new LinkedHashMap<>(claims);
        all.put("iss", issuer);
        long now = Instant.now().getEpochSecond();
        all.put("iat", now);
        all.put("exp", now + 3600);
        String signed = part(Map.of("alg", "HS256", "typ", "JWT")) + "." + part(all);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key());
            return "Bearer " + signed + "." + BASE64URL.encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String part(Map<String, ?> json) {
        try {
            return BASE64URL.encodeToString(JSON.writeValueAsBytes(json));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
