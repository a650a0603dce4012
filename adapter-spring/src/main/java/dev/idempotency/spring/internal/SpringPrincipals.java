package dev.idempotency.spring.internal;

import dev.idempotency.core.adapter.CallerIdentity;
import dev.idempotency.core.adapter.RequestView;
import java.security.Principal;
import java.util.Map;
import java.util.Optional;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken;
import org.springframework.util.ClassUtils;

/**
 * {@link RequestView#principalName()} of the principal Spring MVC or WebFlux hands over: Spring
 * Security's anonymous authentication (as its {@link AuthenticationTrustResolver} recognises it) is
 * nobody, whatever its name ({@code anonymousUser}); an account of that name is a caller like any
 * other. A resource server's bearer token (a JWT's {@code JwtAuthenticationToken}, an opaque
 * token's {@code BearerTokenAuthentication}) is its claims' {@link CallerIdentity#ofToken issuer
 * and subject}, not its name. Spring Security and its resource server are optional: without them
 * on the class path, a principal is its name.
 */
public final class SpringPrincipals {

    private static final ClassLoader LOADER = SpringPrincipals.class.getClassLoader();
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.authentication.AuthenticationTrustResolverImpl", LOADER);
    private static final boolean RESOURCE_SERVER = SECURITY && ClassUtils.isPresent(
            "org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken",
            LOADER);

    private SpringPrincipals() {
    }

    /**
     * Empty for no principal or Spring Security's anonymous one; a bearer token's identity; else
     * its name, {@code ""} when it has none.
     */
    public static Optional<String> nameOf(Principal principal) {
        if (SECURITY && Anonymity.isAnonymous(principal)) {
            return Optional.empty();
        }
        if (RESOURCE_SERVER) {
            Map<String, Object> claims = Tokens.claimsOf(principal);
            if (claims != null) {
                return Optional.of(CallerIdentity.ofToken(claims::get, principal.getName()));
            }
        }
        return RequestView.principalNameOf(principal);
    }

    /** Loaded only when Spring Security is present. */
    private static final class Anonymity {

        private static final AuthenticationTrustResolver TRUST = new AuthenticationTrustResolverImpl();

        static boolean isAnonymous(Principal principal) {
            return principal instanceof Authentication authentication && TRUST.isAnonymous(authentication);
        }
    }

    /** Loaded only when Spring Security's resource server is present. */
    private static final class Tokens {

        /** A bearer token's claims ({@code getTokenAttributes()}), or null for any other principal. */
        static Map<String, Object> claimsOf(Principal principal) {
            return principal instanceof AbstractOAuth2TokenAuthenticationToken<?> token ? token.getTokenAttributes()
                    : null;
        }
    }
}
