package dev.idempotency.vertx;

import dev.idempotency.core.adapter.CallerIdentity;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import java.util.function.Function;

/**
 * The {@link CallerIdentity} of a Vert.x Web {@link User}. A user this application authenticated
 * by name — {@code username} (Basic, properties, htpasswd, SQL…) or {@code userHandle} (WebAuthn) —
 * is that name, as {@link User#subject()} gives it. A user made from a token is the token's, even
 * when its claims hold a {@code username} (JWT, OAuth2: claims under
 * {@code attributes().rootClaim}, or an OpenID Connect {@code idToken}): its issuer and subject, or
 * issuer and client id; without them, {@code ""}, which the engine refuses; without an issuer, its
 * subject as before.
 */
final class UserIdentity {

    private UserIdentity() {
    }

    static String of(User user) {
        JsonObject principal = user.principal();
        if (!isToken(user) && principal != null
                && (principal.containsKey("username") || principal.containsKey("userHandle"))) {
            return CallerIdentity.ofName(user.subject());
        }
        return CallerIdentity.ofToken(claimsOf(user), user.subject());
    }

    /**
     * Whether the user was made from a token (its claims under a root claim, or an ID token): then
     * a {@code username} among its claims is the token issuer's word, not this application's user.
     */
    private static boolean isToken(User user) {
        JsonObject attributes = user.attributes();
        return attributes != null && (attributes.containsKey("rootClaim") || attributes.containsKey("idToken"));
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
