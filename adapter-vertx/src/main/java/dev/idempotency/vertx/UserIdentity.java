package dev.idempotency.vertx;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import java.util.function.Function;

/**
 * The identity a Vert.x Web {@link User} is filed under. A user with a name — {@code username}
 * (Basic, properties, htpasswd, SQL…) or {@code userHandle} (WebAuthn) — is that name, as
 * {@link User#subject()} gives it. A token's user (JWT, OAuth2: claims under
 * {@code attributes().rootClaim}, or an OpenID Connect {@code idToken}) is its issuer and subject,
 * as {@code sub} is unique only per issuer; without a subject, its issuer and client id
 * ({@code client_id}, else {@code azp}); a token without an issuer is its bare subject, as before.
 * Anything else — no name, no subject nor client id — has no usable identity: {@code ""}, which
 * the engine refuses.
 *
 * <p>Issuer, kind and value are joined by NUL characters, which a name never holds here (one that
 * does has no usable identity), so no token's identity can equal another's or a user's name:
 * {@code iss NUL sub} for a subject, {@code iss NUL NUL client} for a client.
 */
final class UserIdentity {

    private static final char SEPARATOR = '\0';
    private static final String NONE = "";

    private UserIdentity() {
    }

    static String of(User user) {
        JsonObject principal = user.principal();
        if (principal != null && (principal.containsKey("username") || principal.containsKey("userHandle"))) {
            return usable(user.subject());
        }
        Function<String, Object> claims = claimsOf(user);
        String issuer = usable(text(claims.apply("iss")));
        String subject = usable(text(claims.apply("sub")));
        if (!subject.isEmpty()) {
            return issuer.isEmpty() ? subject : issuer + SEPARATOR + subject;
        }
        String client = usable(text(claims.apply("client_id")));
        if (client.isEmpty()) {
            client = usable(text(claims.apply("azp")));
        }
        return client.isEmpty() ? NONE : issuer + SEPARATOR + SEPARATOR + client;
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

    private static String text(Object claim) {
        return claim instanceof String value ? value : null;
    }

    /** The value when it is a usable part of an identity: not blank, no separator; else {@code ""}. */
    private static String usable(String value) {
        return value == null || value.isBlank() || value.indexOf(SEPARATOR) >= 0 ? NONE : value;
    }
}
