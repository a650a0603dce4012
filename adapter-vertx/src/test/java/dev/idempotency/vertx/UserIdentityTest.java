package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The identities of user shapes the HTTP tests do not reach: names with the separator, an OpenID
 * Connect ID token, a subject and a client id of one value.
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
    void noTokenIdentityEqualsAnotherOrAName() {
        String subject = UserIdentity.of(token(new JsonObject().put("iss", "https://a.example").put("sub", "svc")));
        String client = UserIdentity.of(token(new JsonObject().put("iss", "https://a.example").put("client_id", "svc")));
        String otherIssuer = UserIdentity.of(token(new JsonObject().put("iss", "https://b.example").put("sub", "svc")));
        String noIssuer = UserIdentity.of(token(new JsonObject().put("sub", "svc")));

        assertThat(noIssuer).as("a token without an issuer keeps its bare subject").isEqualTo("svc");
        assertThat(List.of(subject, client, otherIssuer, noIssuer)).doesNotHaveDuplicates()
                .noneMatch(String::isEmpty);
    }

    @Test
    void clientIdComesBeforeAzpAndANonTextSubjectIsNone() {
        JsonObject both = new JsonObject().put("iss", "https://a.example").put("client_id", "billing").put("azp", "x");

        assertThat(UserIdentity.of(token(both)))
                .isEqualTo(UserIdentity.of(token(new JsonObject().put("iss", "https://a.example").put("azp", "billing"))));
        assertThat(UserIdentity.of(token(new JsonObject().put("iss", "https://a.example").put("sub", 123)))).isEmpty();
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
