package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.spring.internal.DispatchedPath;
import dev.idempotency.spring.internal.SpringPrincipals;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import org.springframework.web.server.ServerWebExchange;

/**
 * The engine's view of an exchange that WebFlux is about to dispatch, with what had to be awaited
 * first: the authenticated principal and the buffered body.
 */
final class ExchangeRequestView implements RequestView {

    private static final byte[] NO_BODY = new byte[0];

    private final ServerWebExchange exchange;
    private final DispatchedPath path;
    private final Principal principal;
    private final byte[] body;

    /**
     * @param principal the exchange's principal ({@code exchange.getPrincipal()}), or null
     * @param body      the buffered body, or null when it was not read (a request without a key)
     */
    ExchangeRequestView(ServerWebExchange exchange, DispatchedPath path, Principal principal, byte[] body) {
        this.exchange = exchange;
        this.path = path;
        this.principal = principal;
        this.body = body;
    }

    @Override
    public String method() {
        return exchange.getRequest().getMethod().name();
    }

    /** {@link DispatchedPath}: what WebFlux's handler mapping matches, one spelling per handler. */
    @Override
    public String path() {
        return path.path();
    }

    /**
     * The request's raw path and query, and the fragment that followed a raw {@code #} in the
     * request target (Reactor Netty passes it on; WebFlux routes on the path before it).
     */
    @Override
    public String requestTarget() {
        URI uri = exchange.getRequest().getURI();
        String query = uri.getRawQuery();
        String fragment = uri.getRawFragment();
        return uri.getRawPath() + (query == null ? "" : "?" + query) + (fragment == null ? "" : "#" + fragment);
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = exchange.getRequest().getHeaders().get(name);
        return values == null ? List.of() : values;
    }

    @Override
    public byte[] body() {
        return body == null ? NO_BODY : body;
    }

    /**
     * The name of the exchange's principal ({@link SpringPrincipals}): with Spring Security, its
     * {@code Authentication}'s, {@code ""} when it has none; empty when there is none or it is Spring
     * Security's anonymous authentication, whatever its name.
     */
    @Override
    public Optional<String> principalName() {
        return SpringPrincipals.nameOf(principal);
    }

    /** {@code ServerWebExchange.class} gives the exchange, {@code Principal.class} its principal; any other type, empty. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type.isInstance(exchange)) {
            return Optional.of(type.cast(exchange));
        }
        return type.isInstance(principal) ? Optional.of(type.cast(principal)) : Optional.empty();
    }
}
