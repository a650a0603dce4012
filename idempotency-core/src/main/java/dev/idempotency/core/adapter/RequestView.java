package dev.idempotency.core.adapter;

import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.TenantResolver;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The few things the engine needs to know about an incoming request. Adapters implement it over
 * their framework's request object; {@link #of} builds one from plain values.
 */
public interface RequestView {

    /** The HTTP method, any case. */
    String method();

    /**
     * The path the framework's router dispatched this request on — the very string it matched its
     * routes against — with or without the query string, which the engine drops. The engine files
     * the record under this path as {@link RequestPaths#normalize} spells it, so every spelling the
     * router sends to one handler lands on one record.
     */
    String path();

    /**
     * The request target as it arrived on the request line, where the framework still has it and
     * it may differ from {@link #path()} (a router that normalizes may have removed a {@code #}
     * along with a dot segment). The engine refuses a target that carries a fragment. Defaults to
     * {@link #path()}.
     */
    default String requestTarget() {
        return path();
    }

    /**
     * The query string as the client sent it — what follows the {@code ?} of the request target,
     * not decoded — or {@code null} when there is none. The record is filed without it, but it is
     * part of the fingerprint: a handler reads it, so a retry that changes it is another request.
     * Defaults to the query of {@link #requestTarget()}.
     */
    default String query() {
        String target = requestTarget();
        int start = target == null ? -1 : target.indexOf('?');
        if (start < 0) {
            return null;
        }
        int fragment = target.indexOf('#', start);
        return target.substring(start + 1, fragment < 0 ? target.length() : fragment);
    }

    /**
     * Every value of the named header, one element per header field line, in arrival order;
     * empty when absent. Names are matched case-insensitively.
     */
    List<String> headers(String name);

    /** The body bytes; empty when there is none. Called only for requests in scope. */
    byte[] body();

    /**
     * The stable identity of the caller the framework authenticated for this request (the servlet
     * {@code getUserPrincipal()}'s name, Micronaut's or Vert.x Web's user), empty when nobody was
     * authenticated (the framework's anonymous authentication included), or {@code ""} when someone
     * was but the authentication gives no usable identity (an empty name, a token without subject or
     * client id) — which the engine refuses rather than file as anonymous. The default
     * {@link CallerResolver} files each caller's records apart under it.
     */
    default Optional<String> principalName() {
        return Optional.empty();
    }

    /**
     * {@link #principalName()} for a framework that authenticates a {@link Principal}: empty for
     * {@code null} (nobody authenticated), else its name ({@link CallerIdentity#ofName}),
     * {@code ""} when it has none.
     */
    static Optional<String> principalNameOf(Principal principal) {
        return principal == null ? Optional.empty() : Optional.of(CallerIdentity.ofName(principal.getName()));
    }

    /**
     * The framework's own request object (or anything else the adapter offers), for a
     * {@link TenantResolver} that reads the authenticated principal rather than headers.
     *
     * @return the object of that type, or empty when the adapter offers none
     */
    default <T> Optional<T> unwrap(Class<T> type) {
        return Optional.empty();
    }

    /** The single value of a header, or {@code null} when absent; the first one when repeated. */
    default String header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? null : values.get(0);
    }

    /** A request view over plain values; header names are matched case-insensitively. */
    static RequestView of(String method, String path, Map<String, List<String>> headers, byte[] body) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(body, "body");
        Map<String, List<String>> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> byName.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values));
        return new RequestView() {
            @Override
            public String method() {
                return method.toUpperCase(Locale.ROOT);
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public List<String> headers(String name) {
                return List.copyOf(byName.getOrDefault(name, List.of()));
            }

            @Override
            public byte[] body() {
                return body;
            }
        };
    }
}
