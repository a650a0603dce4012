package dev.idempotency.vertx;

import dev.idempotency.core.adapter.RequestView;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;

/**
 * The engine's view of a Vert.x Web request. Read on a worker thread: everything it reads (the
 * parsed head and the body {@code BodyHandler} collected) no longer changes by then.
 */
final class RoutingContextView implements RequestView {

    private static final byte[] NO_BODY = new byte[0];

    private final String method;
    private final String path;
    private final String target;
    private final MultiMap headers;
    private final User user;
    private final RoutingContext ctx;

    RoutingContextView(RoutingContext ctx, String method) {
        this.ctx = ctx;
        this.method = method;
        // The router matches routes on normalizedPath() (dot segments removed, unreserved escapes
        // decoded), not on the raw request().path(): the record is filed under what it matched.
        this.path = routedPath(ctx);
        this.target = ctx.request().uri();
        this.headers = ctx.request().headers();
        this.user = ctx.user();
    }

    @Override
    public String method() {
        return method;
    }

    /** The path the router dispatched on: {@link RoutingContext#normalizedPath()}. */
    @Override
    public String path() {
        return path;
    }

    /**
     * The raw request target: {@code /orders#/../payments} is routed to {@code /payments}, and only
     * the raw target still shows the fragment the engine refuses.
     */
    @Override
    public String requestTarget() {
        return target == null ? path : target;
    }

    /**
     * {@code normalizedPath()}, or the raw path where Vert.x cannot normalize it (it throws on a
     * malformed escape such as {@code %zz}), which the engine then refuses.
     */
    private static String routedPath(RoutingContext ctx) {
        try {
            String normalized = ctx.normalizedPath();
            if (normalized != null) {
                return normalized;
            }
        } catch (IllegalArgumentException malformed) {
            // fall through to the raw path
        }
        String raw = ctx.request().path();
        return raw == null ? "/" : raw;
    }

    @Override
    public List<String> headers(String name) {
        // One element per field line: Vert.x keeps repeated header lines as separate entries.
        return headers.getAll(name);
    }

    @Override
    public byte[] body() {
        Buffer body = ctx.body().buffer();
        return body == null ? NO_BODY : body.getBytes();
    }

    /**
     * The {@link UserIdentity} of the user an authentication handler ahead of this one set (a name,
     * or a token's issuer and subject), {@code ""} when it has none, empty when there is no user.
     */
    @Override
    public Optional<String> principalName() {
        return user == null ? Optional.empty() : Optional.of(UserIdentity.of(user));
    }

    /**
     * {@code RoutingContext.class} gives the route's {@link RoutingContext} (with the user an
     * authentication handler set); any other type, empty. Called on a worker thread: read from it,
     * do not write the response.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(ctx) ? Optional.of(type.cast(ctx)) : Optional.empty();
    }
}
