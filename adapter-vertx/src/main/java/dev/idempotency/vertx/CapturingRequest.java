package dev.idempotency.vertx;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.internal.http.HttpServerRequestWrapper;

/**
 * The request the router sees: the server's own, except that its response is a
 * {@link CapturingResponse}.
 *
 * <p><b>The one class of this adapter that uses {@code io.vertx.core.internal}</b>, which Vert.x
 * documents as having no compatibility promise, so it may break on a Vert.x upgrade. It cannot be
 * avoided: Vert.x Web's router casts every request to {@link HttpServerRequestInternal}, so a
 * request that hands out another response must be one, and {@link HttpServerRequestWrapper} is
 * the base Vert.x offers for exactly this. The request's context comes from the public
 * {@link Vertx#currentContext()} (the server calls its request handler on the request's own
 * context, HTTP/1.x and HTTP/2 alike); only a caller outside any context falls back to the
 * internal {@code context()}.
 */
final class CapturingRequest extends HttpServerRequestWrapper {

    private final CapturingResponse response;

    private CapturingRequest(HttpServerRequestInternal delegate, Context context) {
        super(delegate);
        this.response = new CapturingResponse(delegate.response(), context);
    }

    /**
     * {@code request} with a capturing response; a request that is not one of Vert.x's own
     * server unchanged — protected routes then fail loudly with
     * {@link IdempotencyHandler#MISSING_WRAP} instead of running unguarded.
     */
    static HttpServerRequest wrap(HttpServerRequest request) {
        if (!(request instanceof HttpServerRequestInternal internal)) {
            return request;
        }
        Context context = Vertx.currentContext();
        return new CapturingRequest(internal, context != null ? context : internal.context());
    }

    @Override
    public HttpServerResponse response() {
        return response;
    }
}
