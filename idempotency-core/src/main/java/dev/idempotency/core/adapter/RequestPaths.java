package dev.idempotency.core.adapter;

import java.util.Optional;

/**
 * The path part of a record's namespace, from the path a framework's router dispatched a request
 * on.
 *
 * <p>Only what every router treats alike is folded: the query string is dropped, the hex digits of
 * percent-escapes are upper-cased ({@code %2f} is {@code %2F}, which stays distinct from
 * {@code /}), and one trailing slash is removed ({@code /orders/} is {@code /orders}, which is
 * where Javalin, Micronaut and Vert.x Web route it).
 *
 * <p>What RFC 3986 §6.2.2 would resolve further — a dot segment ({@code .}, {@code ..}, in any
 * {@code %2E} spelling), a percent-escape of an unreserved character ({@code %6F}), an empty
 * segment ({@code //}) — names no record and is refused, because routers disagree on it: Vert.x
 * Web resolves it before routing (its {@code normalizedPath()} never carries one, so nothing is
 * refused there), while Javalin and Micronaut route the raw path, where {@code /items/.} or
 * {@code /items/b%75lk} reach an {@code /items/{id}} handler with the id {@code .} or
 * {@code bulk}. Resolving them here would file that handler's request under the record of
 * {@code /items} or {@code /items/bulk}, and replay another handler's response.
 *
 * <p>A fragment ({@code #}) and a malformed escape ({@code %zz}, a lone {@code %}) name no record
 * either: a request line never carries a fragment, and routers disagree on what such a path means.
 * The engine answers a refused path {@code 400 idempotency_path_invalid}. Letter case is kept.
 */
public final class RequestPaths {

    /** The details of the refusals: each names what is wrong with the path. */
    public static final String FRAGMENT = "The request target carries a fragment (#), which a request line never does, "
            + "so it cannot scope an Idempotency-Key";
    static final String MALFORMED_ESCAPE = "The request path has a malformed percent-escape (a % not followed by "
            + "two hex digits), so it cannot scope an Idempotency-Key";
    static final String EMPTY_SEGMENT = "The request path has an empty segment (as in //orders, or /;x/orders once "
            + "path parameters are dropped), which routers resolve differently, so it cannot scope an Idempotency-Key";
    static final String DOT_SEGMENT = "The request path has a dot segment (. or ..), which routers resolve "
            + "differently, so it cannot scope an Idempotency-Key";
    static final String ESCAPED_UNRESERVED = "The request path percent-escapes a character that needs no escape "
            + "(such as %6F for o, or %2E for a dot), which routers decode differently, so it cannot scope an "
            + "Idempotency-Key";

    /**
     * The detail of the refusal of a keyed request whose path carries {@code ;parameters}, for the
     * routers that match {@code /orders;v=2} to {@code /orders} and let the handler read {@code v}:
     * the record leaves them out, so {@code ;v=1} and {@code ;v=2} would share one.
     */
    public static final String PATH_PARAMETERS = "Path parameters (;name=value) reach the handler but are not part "
            + "of the idempotency record; send the request without them";

    private RequestPaths() {
    }

    /**
     * The path a record for {@code path} is filed under, or empty when it names none (see the
     * class description). Adapters that decide coverage themselves match their patterns against
     * this result, so that the covered-or-not decision and the record come from the same string.
     *
     * @param path the path the router dispatched on, with or without its query string
     */
    public static Optional<String> normalize(String path) {
        StringBuilder out = new StringBuilder(path.length() + 1);
        return normalize(path, out) == null ? Optional.of(out.toString()) : Optional.empty();
    }

    /**
     * Why {@link #normalize} refuses {@code path}, as the detail of its {@code 400
     * idempotency_path_invalid}; {@code null} when it does not.
     */
    public static String refusal(String path) {
        return normalize(path, new StringBuilder(path.length() + 1));
    }

    /** Writes the normal form of {@code path} to {@code out}; returns {@code null}, or the refusal's detail. */
    private static String normalize(String path, StringBuilder out) {
        int end = path.indexOf('?');
        if (end < 0) {
            end = path.length();
        }
        if (end > 1 && path.charAt(end - 1) == '/') {
            end--; // the one trailing slash every router ignores
        }
        if (end == 0 || end == 1 && path.charAt(0) == '/') {
            out.append('/');
            return null;
        }
        int from = path.charAt(0) == '/' ? 1 : 0;
        while (true) {
            int to = from;
            while (to < end && path.charAt(to) != '/') {
                to++;
            }
            String refusal = appendSegment(out.append('/'), path, from, to);
            if (refusal != null || to == end) {
                return refusal;
            }
            from = to + 1;
        }
    }

    /** Appends {@code path[from, to)} with its escapes' hex digits upper-cased; returns why it names no record, or null. */
    private static String appendSegment(StringBuilder out, String path, int from, int to) {
        int length = to - from;
        if (length == 0) {
            return EMPTY_SEGMENT;
        }
        if (path.charAt(from) == '.' && (length == 1 || length == 2 && path.charAt(from + 1) == '.')) {
            return DOT_SEGMENT;
        }
        for (int i = from; i < to; i++) {
            char c = path.charAt(i);
            if (c == '#') {
                return FRAGMENT;
            }
            if (c != '%') {
                out.append(c);
                continue;
            }
            int high = i + 2 < to ? hex(path.charAt(i + 1)) : -1;
            int low = i + 2 < to ? hex(path.charAt(i + 2)) : -1;
            if (high < 0 || low < 0) {
                return MALFORMED_ESCAPE;
            }
            if (isUnreserved((char) (high << 4 | low))) {
                return ESCAPED_UNRESERVED; // %2E included
            }
            out.append('%').append(Character.toUpperCase(path.charAt(i + 1)))
                    .append(Character.toUpperCase(path.charAt(i + 2)));
            i += 2;
        }
        return null;
    }

    private static boolean isUnreserved(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static int hex(char c) {
        return c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                : -1;
    }
}
