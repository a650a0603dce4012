package dev.idempotency.micronaut;

import dev.idempotency.core.RequestView;
import io.micronaut.http.HttpRequest;
import java.net.URI;
import java.util.List;

/** The engine's view of a Micronaut request: raw path and query, every header line, the body bytes. */
final class MicronautRequestView implements RequestView {

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

    @Override
    public String path() {
        // Raw, so percent-encoding reaches the engine as the client sent it.
        URI uri = request.getUri();
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    @Override
    public List<String> headers(String name) {
        return request.getHeaders().getAll(name);
    }

    @Override
    public byte[] body() {
        return body;
    }
}
