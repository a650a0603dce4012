package dev.idempotency.micronaut;

import dev.idempotency.core.RequestView;
import io.micronaut.http.HttpRequest;
import java.util.List;
import java.util.Optional;

/** The engine's view of a Micronaut request: the path its router matches, every header line, the body bytes. */
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
     * {@link HttpRequest#getUserPrincipal()}'s name: the {@code Authentication} micronaut-security's
     * filter put on the request ({@code ""} when it has none: refused, never anonymous); empty for an
     * anonymous request and without micronaut-security.
     */
    @Override
    public Optional<String> principalName() {
        return RequestView.principalNameOf(request.getUserPrincipal().orElse(null));
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
