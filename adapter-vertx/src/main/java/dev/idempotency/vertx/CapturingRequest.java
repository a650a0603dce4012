package dev.idempotency.vertx;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.internal.http.HttpServerRequestWrapper;

/**
 * The request the router sees: the server's own, except that its response is a
 * {@link CapturingResponse}. Vert.x Web needs an {@link HttpServerRequestInternal}, and
 * {@link HttpServerRequestWrapper} is the base Vert.x offers for exactly this.
 */
final class CapturingRequest extends HttpServerRequestWrapper {

    private final CapturingResponse response;

    CapturingRequest(HttpServerRequestInternal delegate) {
        super(delegate);
        this.response = new CapturingResponse(delegate.response(), delegate.context());
    }

    @Override
    public HttpServerResponse response() {
        return response;
    }
}
