package dev.idempotency.core.adapter;

import java.net.URI;
import java.net.URL;
import java.util.function.Function;

/**
 * The identity an adapter gives {@link RequestView#principalName()}, one encoding for every
 * framework. A name is itself. A token is its issuer and subject ({@code iss}, {@code sub}), as a
 * subject is unique only per issuer; without a subject, its issuer and client id ({@code client_id},
 * else {@code azp}). Issuer, kind and value are joined by NUL characters ({@code iss NUL sub},
 * {@code iss NUL NUL client}), which no usable name or part holds, so no token with an issuer has
 * another's identity or a name's. A token without an issuer keeps the name its framework gives it
 * (its subject, by default), as its records were filed before issuers counted: it shares that
 * name's namespace. No usable identity is {@code ""} (a blank name, a name with a NUL, an issuer
 * that is not text, a token without subject or client id), which the engine refuses.
 */
public final class CallerIdentity {

    private static final char SEPARATOR = '\0';
    private static final String NONE = "";

    private CallerIdentity() {
    }

    /** A name as an identity: itself; {@code ""} when it is null, blank or holds a NUL. */
    public static String ofName(String name) {
        return name == null || name.isBlank() || name.indexOf(SEPARATOR) >= 0 ? NONE : name;
    }

    /**
     * The identity of a token whose claims {@code claims} gives by name (null for an absent one);
     * a claim that is not text (nor a URL or URI, as some frameworks hand {@code iss}) is absent,
     * except an issuer, which then leaves the token without an identity.
     *
     * @param name the name the framework gives the token's principal, the identity of a token
     *             without an issuer
     */
    public static String ofToken(Function<String, ?> claims, String name) {
        Object iss = claims.apply("iss");
        if (iss == null) {
            return ofName(name);
        }
        String issuer = ofName(text(iss));
        if (issuer.isEmpty()) {
            return NONE; // an issuer that is not text, or blank: nothing tells whose subject it is
        }
        String subject = ofName(text(claims.apply("sub")));
        if (!subject.isEmpty()) {
            return issuer + SEPARATOR + subject;
        }
        String client = ofName(text(claims.apply("client_id")));
        if (client.isEmpty()) {
            client = ofName(text(claims.apply("azp")));
        }
        return client.isEmpty() ? NONE : issuer + SEPARATOR + SEPARATOR + client;
    }

    private static String text(Object claim) {
        return claim instanceof String || claim instanceof URL || claim instanceof URI ? claim.toString() : null;
    }
}
