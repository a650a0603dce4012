package dev.idempotency.spring;

import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.framework.servlet.BufferedBodyRequest;
import dev.idempotency.spring.internal.DispatchedPath;
import dev.idempotency.spring.internal.SpringPrincipals;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;

/** The engine's view of a servlet request that Spring MVC is about to dispatch. */
final class SpringRequestView implements RequestView {

    private final BufferedBodyRequest request;
    private final DispatchedPath path;

    SpringRequestView(BufferedBodyRequest request, DispatchedPath path) {
        this.request = request;
        this.path = path;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /** {@link DispatchedPath}: what Spring MVC's handler mapping matches, one spelling per handler. */
    @Override
    public String path() {
        return path.path();
    }

    /** The request URI as Tomcat received it (raw, not normalized). */
    @Override
    public String requestTarget() {
        return request.getRequestURI();
    }

    /** The servlet's raw query string. */
    @Override
    public String query() {
        return request.getQueryString();
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    /**
     * Read once, then served again to the controller ({@link BufferedBodyRequest}).
     *
     * @throws UnreadableBody when the body cannot be read to its end: it is shorter than its
     *                        {@code Content-Length}, its chunked framing is broken, the client went away
     */
    @Override
    public byte[] body() {
        try {
            return request.body();
        } catch (IOException e) {
            throw new UnreadableBody(e);
        }
    }

    /** The client's request body could not be read; the filter answers it 400. */
    static final class UnreadableBody extends UncheckedIOException {
        UnreadableBody(IOException cause) {
            super(cause);
        }
    }

    /**
     * {@code getUserPrincipal()}'s name ({@link SpringPrincipals}): with Spring Security, the
     * authenticated {@code Authentication}'s, {@code ""} when it has none; empty for an anonymous
     * request (Spring Security's anonymous authentication, whatever its name) and without security.
     */
    @Override
    public Optional<String> principalName() {
        return SpringPrincipals.nameOf(request.getUserPrincipal());
    }

    /** {@code HttpServletRequest.class} (or a supertype) gives the servlet request; any other type, empty. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(request) ? Optional.of(type.cast(request)) : Optional.empty();
    }
}
