package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CallerIdentity;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import org.junit.jupiter.api.Test;

/**
 * Which claims of a Vert.x user the HTTP tests do not reach make its identity: a name's, a token's
 * under its root claim, an OpenID Connect ID token's ({@link CallerIdentity} encodes them).
 */
class UserIdentityTest {

    /** A user as vertx-auth-jwt and vertx-auth-oauth2 make one: the claims under {@code attributes().rootClaim}. */
    private static User token(JsonObject claims) {
        return User.create(claims.copy(), new JsonObject().put("accessToken", claims).put("rootClaim", "accessToken"));
    }

    @Test
    void aNameIsItselfAndOneWithTheSeparatorHasNoIdentity() {
        assertThat(UserIdentity.of(User.fromName("alice"))).isEqualTo("alice");
        assertThat(UserIdentity.of(User.fromName("https://a.example\0alice"))).isEmpty();
        assertThat(UserIdentity.of(User.fromName(" "))).isEmpty();
    }

    @Test
    void aTokensUserIsItsClaimsIdentity() {
        JsonObject claims = new JsonObject().put("iss", "https://a.example").put("client_id", "billing");

        assertThat(UserIdentity.of(token(claims))).isEqualTo(CallerIdentity.ofToken(claims::getValue, null))
                .isNotEmpty();
    }

    @Test
    void aTokenWithAUsernameClaimIsStillItsIssuersAndSubjects() {
        JsonObject claims = new JsonObject().put("iss", "https://b.example").put("sub", "evil").put("username", "admin");

        assertThat(UserIdentity.of(token(claims))).isEqualTo(CallerIdentity.ofToken(claims::getValue, null))
                .isNotEqualTo(UserIdentity.of(User.fromName("admin")));
        assertThat(UserIdentity.of(token(claims.copy().put("sub", "other"))))
                .isNotEqualTo(UserIdentity.of(token(claims)));
    }

    @Test
    void anOpenIdConnectUserIsTheIdTokensIssuerAndSubject() {
        JsonObject idToken = new JsonObject().put("iss", "https://a.example").put("sub", "alice");
        User oidc = User.create(new JsonObject().put("access_token", "opaque"),
                new JsonObject().put("idToken", idToken));

        assertThat(UserIdentity.of(oidc)).isEqualTo(UserIdentity.of(token(idToken)));
        assertThat(UserIdentity.of(oidc)).isNotEqualTo("alice");
    }
}
