package dev.idempotency.vertx;

import dev.idempotency.core.CallerIdentity;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import java.util.function.Function;

/**
 * The {@link CallerIdentity} of a Vert.x Web {@link User}. A user with a name — {@code username}
 * (Basic, properties, htpasswd, SQL…) or {@code userHandle} (WebAuthn) — is that name, as
 * {@link User#subject()} gives it. Any other user is a token's (JWT, OAuth2: claims under
 * {@code attributes().rootClaim}, or an OpenID Connect {@code idToken}): its issuer and subject, or
 * issuer and client id; without them, {@code ""}, which the engine refuses; without an issuer, its
 * subject as before.
 */
final class UserIdentity {

    private UserIdentity() {
    }

    static String of(User user) {
        JsonObject principal = user.principal();
        if (principal != null && (principal.containsKey("username") || principal.containsKey("userHandle"))) {
            return CallerIdentity.ofName(user.subject());
        }
        return CallerIdentity.ofToken(claimsOf(user), user.subject());
    }

    /**
     * The claims {@link User#subject()} reads: an OpenID Connect ID token's when it has a subject,
     * else {@link User#get}'s (the root claim's object, then the attributes, then the principal).
     */
    private static Function<String, Object> claimsOf(User user) {
        JsonObject attributes = user.attributes();
        Object idToken = attributes == null ? null : attributes.getValue("idToken");
        if (idToken instanceof JsonObject token && token.containsKey("sub")) {
            return token::getValue;
        }
        return user::get;
    }
}
