package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CallerIdentity;
import jakarta.json.Json;
import java.security.Principal;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

/**
 * A MicroProfile JWT whose claims beyond the standard ones come as JSON-P values, as the
 * specification allows (SmallRye JWT 4.6 hands text claims as strings): its {@code client_id} is
 * its client all the same.
 */
class JsonWebTokensTest {

    /** A token whose claims are these values, named by {@code upn}. */
    record Token(Map<String, Object> claims) implements JsonWebToken {
        @Override
        public String getName() {
            return (String) claims.get("upn");
        }

        @Override
        public Set<String> getClaimNames() {
            return claims.keySet();
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getClaim(String claimName) {
            return (T) claims.get(claimName);
        }
    }

    @Test
    void aClientIdAsJsonStringIsTheTokensClient() {
        Token token = new Token(Map.of("iss", "https://a.example", "client_id", Json.createValue("billing")));

        assertThat(JsonWebTokens.isToken(token)).isTrue();
        assertThat(JsonWebTokens.identityOf(token)).isEqualTo(
                CallerIdentity.ofToken(Map.of("iss", "https://a.example", "client_id", "billing")::get, null));
    }

    @Test
    void aTokenIsItsIssuerAndSubjectNotItsName() {
        Token token = new Token(Map.of("iss", "https://a.example", "sub", "alice", "upn", "alice@a.example"));

        assertThat(JsonWebTokens.identityOf(token)).isEqualTo(
                CallerIdentity.ofToken(Map.of("iss", "https://a.example", "sub", "alice")::get, null));
    }

    @Test
    void anyOtherPrincipalIsNoToken() {
        Principal named = () -> "alice";

        assertThat(JsonWebTokens.isToken(named)).isFalse();
    }
}
