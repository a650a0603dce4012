package dev.idempotency.vertx;

import dev.idempotency.core.RequestView;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * The engine's view of a Vert.x Web request. Read on a worker thread: everything it reads (the
 * parsed head and the body {@code BodyHandler} collected) no longer changes by then.
 */
final class RoutingContextView implements RequestView {

    private static final byte[] NO_BODY = new byte[0];

    private final String method;
    private final String path;
    private final MultiMap headers;
    private final RoutingContext ctx;

    RoutingContextView(RoutingContext ctx, String method) {
        this.ctx = ctx;
        this.method = method;
        // path(), not uri(): an absolute-form request target still yields just the path.
        this.path = ctx.request().path();
        this.headers = ctx.request().headers();
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path == null ? "/" : path;
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
}
