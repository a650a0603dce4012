package dev.idempotency.spring.internal;

import dev.idempotency.core.RequestView;
import java.security.Principal;
import java.util.Optional;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.util.ClassUtils;

/**
 * {@link RequestView#principalName()} of the principal Spring MVC or WebFlux hands over: Spring
 * Security's anonymous authentication (as its {@link AuthenticationTrustResolver} recognises it) is
 * nobody, whatever its name ({@code anonymousUser}); an account of that name is a caller like any
 * other. Spring Security is optional: without it on the class path, a principal is its name.
 */
public final class SpringPrincipals {

    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.authentication.AuthenticationTrustResolverImpl",
            SpringPrincipals.class.getClassLoader());

    private SpringPrincipals() {
    }

    /** Empty for no principal or Spring Security's anonymous one; else its name, {@code ""} when it has none. */
    public static Optional<String> nameOf(Principal principal) {
        if (SECURITY && Anonymity.isAnonymous(principal)) {
            return Optional.empty();
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
}
