package dev.idempotency.core;

import java.util.Optional;

/**
 * The path part of a record's namespace, from the path a framework's router dispatched a request
 * on. Every spelling that names the same resource under RFC 3986 §6.2.2 gets one path, so
 * adapters agree even where a router normalizes less than another:
 *
 * <ul>
 *   <li>the query string is dropped;</li>
 *   <li>percent-encoded unreserved characters ({@code ALPHA DIGIT - . _ ~}) are decoded and the hex
 *       digits of every other escape upper-cased: {@code /%6frders} is {@code /orders}, {@code %2f}
 *       is {@code %2F} — which stays distinct from {@code /}, as it does for routers;</li>
 *   <li>dot segments are removed (RFC 3986 §5.2.4, after that decoding, so {@code %2E%2E} is
 *       {@code ..}): {@code /x/../orders} and {@code /./orders} are {@code /orders};</li>
 *   <li>runs of slashes are collapsed and a trailing slash is removed: {@code //orders/} is
 *       {@code /orders}.</li>
 * </ul>
 *
 * <p>Letter case is kept ({@code /Orders} is another path, as it is to routers by default).
 *
 * <p>A path that carries a fragment ({@code #}) or a malformed escape ({@code %zz}, a lone
 * {@code %}) names no record: a request line never carries a fragment, and routers disagree on
 * what such a path means — the engine answers {@code 400 idempotency_path_invalid}.
 */
public final class RequestPaths {

    private RequestPaths() {
    }

    /**
     * The path a record for {@code path} is filed under, or empty when it names none (a fragment
     * or a malformed percent-escape). Adapters that decide coverage themselves match their
     * patterns against this result, so that the covered-or-not decision and the record come from
     * the same string.
     *
     * @param path the path the router dispatched on, with or without its query string
     */
    public static Optional<String> normalize(String path) {
        int end = path.indexOf('?');
        if (end < 0) {
            end = path.length();
        }
        StringBuilder decoded = new StringBuilder(end + 1);
        for (int i = 0; i < end; i++) {
            char c = path.charAt(i);
            if (c == '#') {
                return Optional.empty();
            }
            if (c != '%') {
                decoded.append(c);
                continue;
            }
            if (i + 2 >= end || hex(path.charAt(i + 1)) < 0 || hex(path.charAt(i + 2)) < 0) {
                return Optional.empty();
            }
            char octet = (char) (hex(path.charAt(i + 1)) << 4 | hex(path.charAt(i + 2)));
            if (isUnreserved(octet)) {
                decoded.append(octet);
            } else {
                decoded.append('%').append(upper(path.charAt(i + 1))).append(upper(path.charAt(i + 2)));
            }
            i += 2;
        }
        return Optional.of(collapseSlashes(removeDotSegments(decoded)));
    }

    /** RFC 3986 §5.2.4 on an absolute path (a relative one is taken as starting at the root). */
    private static String removeDotSegments(CharSequence input) {
        StringBuilder out = new StringBuilder(input.length() + 1);
        int i = 0;
        int n = input.length();
        while (i < n) {
            // The segment starting at i (after its slash, if any) runs to the next slash.
            int start = input.charAt(i) == '/' ? i + 1 : i;
            int next = start;
            while (next < n && input.charAt(next) != '/') {
                next++;
            }
            int length = next - start;
            boolean dot = length == 1 && input.charAt(start) == '.';
            boolean dotDot = length == 2 && input.charAt(start) == '.' && input.charAt(start + 1) == '.';
            if (dotDot) {
                int cut = out.lastIndexOf("/");
                out.setLength(Math.max(cut, 0));
            }
            if (dot || dotDot) {
                if (next == n) {
                    out.append('/'); // a final dot segment leaves its directory's slash
                }
            } else {
                out.append('/').append(input, start, next);
            }
            i = next;
        }
        return out.toString();
    }

    private static String collapseSlashes(String path) {
        StringBuilder out = new StringBuilder(path.length() + 1);
        out.append('/');
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c != '/' || out.charAt(out.length() - 1) != '/') {
                out.append(c);
            }
        }
        if (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
            out.setLength(out.length() - 1);
        }
        return out.toString();
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

    private static char upper(char hexDigit) {
        return Character.toUpperCase(hexDigit);
    }
}
