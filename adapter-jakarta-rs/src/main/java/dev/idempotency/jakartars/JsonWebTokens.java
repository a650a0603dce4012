package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.CallerIdentity;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.Principal;

/**
 * The caller identity of a MicroProfile JWT principal ({@code org.eclipse.microprofile.jwt.JsonWebToken},
 * as Quarkus's smallrye-jwt and OIDC or SmallRye JWT on Jersey put it in the {@code SecurityContext}):
 * its claims' {@link CallerIdentity#ofToken issuer and subject}, not its name ({@code upn}, else
 * {@code preferred_username}, else {@code sub}). MicroProfile JWT is optional and read by reflection:
 * its API jar has no module name this module could require, and claims beyond the standard ones
 * ({@code client_id}) come as JSON-P {@code JsonString}s, read as their string.
 */
final class JsonWebTokens {

    private static final Method GET_CLAIM = method("org.eclipse.microprofile.jwt.JsonWebToken", "getClaim", String.class);
    private static final Method GET_STRING = method("jakarta.json.JsonString", "getString");

    private JsonWebTokens() {
    }

    /** Whether the principal is a MicroProfile JWT. */
    static boolean isToken(Principal principal) {
        return GET_CLAIM != null && GET_CLAIM.getDeclaringClass().isInstance(principal);
    }

    /** The identity of a principal {@link #isToken} accepts. */
    static String identityOf(Principal token) {
        return CallerIdentity.ofToken(claim -> text(invoke(GET_CLAIM, token, claim)), token.getName());
    }

    private static Object text(Object claim) {
        return GET_STRING != null && GET_STRING.getDeclaringClass().isInstance(claim) ? invoke(GET_STRING, claim)
                : claim;
    }

    private static Object invoke(Method method, Object target, Object... arguments) {
        try {
            return method.invoke(target, arguments);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException unchecked ? unchecked : new IllegalStateException(e.getCause());
        }
    }

    private static Method method(String type, String name, Class<?>... parameters) {
        try {
            return Class.forName(type, false, JsonWebTokens.class.getClassLoader()).getMethod(name, parameters);
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError absent) {
            return null;
        }
    }
}
