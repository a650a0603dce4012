package dev.idempotency.spring.internal;

import dev.idempotency.core.adapter.RequestPaths;
import java.nio.charset.StandardCharsets;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;

/**
 * The path Spring MVC and Spring WebFlux dispatch a request on, spelled so that every spelling they
 * send to one handler is one string. Shared by this project's Spring adapters; not an API.
 *
 * <p>Spring's {@code PathPattern} matching (MVC and WebFlux alike) walks {@link RequestPath#pathWithinApplication()}
 * (the raw request URI without the context path) element by element, and compares each segment by
 * its {@link PathContainer.PathSegment#valueToMatch() valueToMatch}: percent-decoded, with its
 * {@code ;matrix} parameters removed. So {@code /orders;x}, {@code /orders;x=1} and
 * {@code /%6Frders} all reach the {@code /orders} handler, and {@code /orders/%21} and
 * {@code /orders/!} hand {@code /orders/{id}} the same id. The path built here is each segment's
 * value re-encoded one way (unreserved characters, sub-delimiters other than {@code ;}, {@code :} and
 * {@code @} as they are, everything else as upper-case UTF-8 escapes), with the separators as they
 * came: empty segments ({@code //}) and dot segments stay, and core's
 * {@link dev.idempotency.core.adapter.RequestPaths#normalize} refuses them.
 *
 * <p>Two spellings are refused under a key ({@link #refusal()}): a trailing slash — Spring MVC 7
 * does not route {@code /orders/} to {@code /orders}, while core files both under {@code /orders} —
 * and {@code ;parameters}, which the handler can read ({@code @MatrixVariable}) but the record's
 * path leaves out, so {@code /orders;v=1} and {@code /orders;v=2} would share a record and a
 * fingerprint.
 *
 * @param path    the record's path as described above
 * @param refusal why a keyed request on this path is refused, or {@code null}
 */
public record DispatchedPath(String path, String refusal) {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** The detail of the refusal of a keyed request whose path ends in {@code /}. */
    public static final String TRAILING_SLASH = "Spring does not route a path with a trailing slash to the path without it";

    /** The path of {@code within}, a request's {@link RequestPath#pathWithinApplication()}. */
    public static DispatchedPath of(PathContainer within) {
        StringBuilder out = new StringBuilder(within.value().length() + 8);
        boolean parameters = false;
        for (PathContainer.Element element : within.elements()) {
            if (element instanceof PathContainer.PathSegment segment) {
                encodeSegment(segment.valueToMatch(), out);
                parameters |= !segment.parameters().isEmpty();
            } else {
                out.append('/');
            }
        }
        String path = out.length() == 0 ? "/" : out.toString();
        String refusal = path.length() > 1 && path.endsWith("/") ? TRAILING_SLASH : parameters ? RequestPaths.PATH_PARAMETERS : null;
        return new DispatchedPath(path, refusal);
    }

    /** A path as it came, for a request whose path Spring could not parse. */
    public static DispatchedPath raw(String path) {
        return new DispatchedPath(path, null);
    }

    private static void encodeSegment(String value, StringBuilder out) {
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (keptAsIs(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
    }

    /** RFC 3986 pchar without pct-encoded, less {@code ;} (Spring's parameter delimiter). */
    private static boolean keptAsIs(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || "-._~!$&'()*+,=:@".indexOf(c) >= 0;
    }
}
