package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.RequestView;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import java.util.Optional;

/** The engine's view of a Jakarta REST request, as a request filter sees it once it was matched. */
final class JakartaRequestView implements RequestView {

    /** The request property with the path as the client sent it, where given ({@link IdempotencyFeature#requestPath}). */
    static final String RAW_PATH = JakartaRequestView.class.getName() + ".rawPath";

    /** What a path segment may hold as it is, whose escapes Jakarta REST decodes to the same value. */
    private static final String FOLDED = "!$&'()*+,=:@";

    private final ContainerRequestContext request;
    private final int bodyLimit;
    private final String path;
    private final boolean pathParameters;
    private byte[] body;

    /** {@code bodyLimit}: the engine's request body limit; one byte more is read at most. */
    JakartaRequestView(ContainerRequestContext request, int bodyLimit) {
        this.request = request;
        this.bodyLimit = bodyLimit;
        UriInfo uri = request.getUriInfo();
        String raw = request.getProperty(RAW_PATH) instanceof String given ? given : null;
        String encoded = raw != null ? raw : encodedPath(uri);
        this.path = dispatchedPath(raw != null ? "/" : uri.getBaseUri().getRawPath(), encoded);
        this.pathParameters = encoded.indexOf(';') >= 0;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The path the runtime matched its resources against: the application's base path and the
     * request path within it ({@link UriInfo#getPath(boolean) getPath(false)}, or the path as the
     * client sent it where the runtime gave it), still encoded, with each segment's
     * {@code ;parameters} removed. Jersey matches its templates on that string: it sends
     * {@code /orders;x} to {@code /orders} and decodes only what a template captures. An escaped
     * character that a segment may also hold as it is ({@code %2B} for {@code +}, and the other
     * sub-delimiters but {@code ;}, and {@code :} and {@code @}) is written as it is: a path parameter
     * decodes both spellings to one value, so they are one record.
     */
    @Override
    public String path() {
        return path;
    }

    /** Whether a segment of the path carries {@code ;parameters}, which the resource can read. */
    boolean hasPathParameters() {
        return pathParameters;
    }

    /**
     * {@link UriInfo#getPath(boolean) getPath(false)}; where the runtime keeps no encoded path
     * (Quarkus REST refuses with {@code IllegalArgumentException}), the request URI's raw path
     * within the base URI's.
     */
    private static String encodedPath(UriInfo uri) {
        try {
            return uri.getPath(false);
        } catch (IllegalArgumentException | UnsupportedOperationException notKept) {
            String raw = uri.getRequestUri().getRawPath();
            String base = uri.getBaseUri().getRawPath();
            if (raw == null) {
                return "";
            }
            if (base != null && base.length() > 1) {
                String prefix = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
                if (raw.startsWith(prefix)) {
                    raw = raw.substring(prefix.length());
                }
            }
            return raw.startsWith("/") ? raw.substring(1) : raw;
        }
    }

    private static String dispatchedPath(String base, String within) {
        if (base == null || base.isEmpty()) {
            base = "/";
        }
        StringBuilder path = new StringBuilder(base.length() + within.length() + 1).append(base);
        if (path.charAt(path.length() - 1) != '/') {
            path.append('/');
        }
        boolean inParameters = false;
        for (int i = within.startsWith("/") ? 1 : 0; i < within.length(); i++) {
            char c = within.charAt(i);
            if (c == '/') {
                inParameters = false;
            } else if (c == ';') {
                inParameters = true;
            }
            if (inParameters) {
                continue;
            }
            char folded = c == '%' && i + 2 < within.length()
                    ? unescaped(within.charAt(i + 1), within.charAt(i + 2)) : 0;
            if (folded != 0) {
                path.append(folded);
                i += 2;
            } else {
                path.append(c);
            }
        }
        return path.toString();
    }

    /** The character {@code %hl} escapes when a segment may hold it as it is; otherwise 0. */
    private static char unescaped(char high, char low) {
        String hex = "0123456789ABCDEF";
        int h = hex.indexOf(Character.toUpperCase(high));
        int l = hex.indexOf(Character.toUpperCase(low));
        char c = (char) (h << 4 | l);
        return h >= 0 && l >= 0 && FOLDED.indexOf(c) >= 0 ? c : 0;
    }

    /**
     * The request URI's path with its raw query and, where the server kept one, its fragment; the
     * engine refuses a target with a fragment.
     */
    @Override
    public String requestTarget() {
        URI uri = request.getUriInfo().getRequestUri();
        StringBuilder target = new StringBuilder(uri.getRawPath() == null ? "/" : uri.getRawPath());
        if (uri.getRawQuery() != null) {
            target.append('?').append(uri.getRawQuery());
        }
        if (uri.getRawFragment() != null) {
            target.append('#').append(uri.getRawFragment());
        }
        return target.toString();
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? List.of() : List.copyOf(values);
    }

    /**
     * Up to one byte over the engine's limit (a larger body is refused with 413 anyway); the entity
     * stream is replaced, so the resource still reads the whole body.
     */
    @Override
    public byte[] body() {
        if (body == null) {
            if (!request.hasEntity()) {
                body = new byte[0];
                return body;
            }
            InputStream in = request.getEntityStream();
            try {
                body = in.readNBytes(bodyLimit + 1);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            request.setEntityStream(new SequenceInputStream(new ByteArrayInputStream(body), in));
        }
        return body;
    }

    /**
     * The identity of {@link SecurityContext#getUserPrincipal()}: a MicroProfile JWT's
     * {@link JsonWebTokens issuer and subject}, any other principal's name ({@code ""} when it has
     * none: refused, never anonymous); empty when there is no principal.
     */
    @Override
    public Optional<String> principalName() {
        SecurityContext security = request.getSecurityContext();
        Principal principal = security == null ? null : security.getUserPrincipal();
        return principal != null && JsonWebTokens.isToken(principal)
                ? Optional.of(JsonWebTokens.identityOf(principal)) : RequestView.principalNameOf(principal);
    }

    /** {@code ContainerRequestContext.class} gives the request context; any other type, empty. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(request) ? Optional.of(type.cast(request)) : Optional.empty();
    }
}
