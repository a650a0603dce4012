package dev.idempotency.micronaut;

import dev.idempotency.core.adapter.CallerIdentity;
import dev.idempotency.core.adapter.RequestView;
import io.micronaut.core.reflect.ClassUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.security.authentication.Authentication;
import java.security.Principal;
import java.util.List;
import java.util.Optional;

/** The engine's view of a Micronaut request: the path its router matches, every header line, the body bytes. */
final class MicronautRequestView implements RequestView {

    private static final boolean SECURITY = ClassUtils.isPresent(
            "io.micronaut.security.authentication.Authentication", MicronautRequestView.class.getClassLoader());

    private final HttpRequest<?> request;
    private final byte[] body;

    MicronautRequestView(HttpRequest<?> request, byte[] body) {
        this.request = request;
        this.body = body == null ? new byte[0] : body;
    }

    @Override
    public String method() {
        return request.getMethodName();
    }

    /**
     * {@link HttpRequest#getPath()}: the string the router matches routes against, and the one
     * {@link IdempotencyFilter#isEnabled} matches its patterns against — so coverage and the record
     * come from the same path.
     */
    @Override
    public String path() {
        return routedPath(request);
    }

    /** The request target as received, fragment included when the request line carried one. */
    @Override
    public String requestTarget() {
        return request.getUri().toString();
    }

    @Override
    public List<String> headers(String name) {
        return request.getHeaders().getAll(name);
    }

    @Override
    public byte[] body() {
        return body;
    }

    /**
     * The identity of {@link HttpRequest#getUserPrincipal()}, the {@code Authentication}
     * micronaut-security's filter put on the request: a token's issuer and subject when its
     * attributes hold an {@code iss} claim (micronaut-security-jwt puts the claims there), else its
     * name ({@code ""} when it has none: refused, never anonymous); empty for an anonymous request
     * and without micronaut-security.
     */
    @Override
    public Optional<String> principalName() {
        Principal principal = request.getUserPrincipal().orElse(null);
        return SECURITY && principal != null ? Optional.of(Tokens.identityOf(principal))
                : RequestView.principalNameOf(principal);
    }

    /** Loaded only when micronaut-security is present. */
    private static final class Tokens {

        static String identityOf(Principal principal) {
            return principal instanceof Authentication authentication
                    ? CallerIdentity.ofToken(authentication.getAttributes()::get, authentication.getName())
                    : CallerIdentity.ofName(principal.getName());
        }
    }

    static String routedPath(HttpRequest<?> request) {
        String path = request.getPath();
        return path == null || path.isEmpty() ? "/" : path;
    }

    /**
     * {@code HttpRequest.class} gives the Micronaut request the filter received (with the
     * attributes authentication set, such as its principal); any other type, empty.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(request) ? Optional.of(type.cast(request)) : Optional.empty();
    }
}
