package dev.idempotency.javalin;

import dev.idempotency.core.adapter.RequestView;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;

/** The engine's view of a Javalin request. */
final class JavalinRequestView implements RequestView {

    private final Context ctx;

    JavalinRequestView(Context ctx) {
        this.ctx = ctx;
    }

    /** The method Javalin routes on (it honours {@code X-HTTP-Method-Override}). */
    @Override
    public String method() {
        return ctx.method().name();
    }

    /**
     * {@code ctx.path()}: the raw request URI Javalin's router matched. Jetty passes dot segments
     * and escapes through ({@code /items/.} reaches {@code /items/{id}} with the id {@code .}), so
     * the engine refuses those under a key rather than resolving them.
     */
    @Override
    public String path() {
        return ctx.path();
    }

    /**
     * The path with the fragment Jetty parsed off the request line, if there was one: Jetty
     * accepts {@code POST /orders#x} (noting a compliance violation) and routes it to
     * {@code /orders}, and the engine refuses a target with a fragment.
     */
    @Override
    public String requestTarget() {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(ctx.req());
        String fragment = jetty == null ? null : jetty.getHttpURI().getFragment();
        return fragment == null ? ctx.path() : ctx.path() + "#" + fragment;
    }

    /** The servlet's raw query string. */
    @Override
    public String query() {
        return ctx.queryString();
    }

    /** Jetty gives one element per header field line. */
    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = ctx.req().getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    /**
     * Javalin caches the body it reads, so {@code ctx.body()} and {@code ctx.bodyAsClass(..)} still
     * work in the endpoint; the filter keeps it re-readable for {@code ctx.bodyInputStream()} too.
     */
    @Override
    public byte[] body() {
        IdempotencyFilter.keepBodyReadable(ctx.req());
        return ctx.bodyAsBytes();
    }

    /**
     * The name of the servlet request's {@code getUserPrincipal()}, set by a Jetty security handler
     * (Javalin itself authenticates nobody), {@code ""} when it has none (refused, never
     * anonymous), or empty when there is no principal.
     */
    @Override
    public Optional<String> principalName() {
        return RequestView.principalNameOf(ctx.req().getUserPrincipal());
    }

    /** {@code Context.class} (or a supertype) gives the Javalin {@link Context}; any other type, empty. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(ctx) ? Optional.of(type.cast(ctx)) : Optional.empty();
    }
}
