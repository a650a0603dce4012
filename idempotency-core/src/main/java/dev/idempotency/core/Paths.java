package dev.idempotency.core;

/**
 * The path part of a record's namespace: the query string and fragment dropped, runs of slashes
 * collapsed, a trailing slash removed. Percent-encoding is kept as received, so {@code /a%2Fb}
 * and {@code /a/b} stay different paths.
 */
final class Paths {

    private Paths() {
    }

    static String normalize(String rawPath) {
        int end = rawPath.length();
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        StringBuilder out = new StringBuilder(end + 1);
        for (int i = 0; i < end; i++) {
            char c = rawPath.charAt(i);
            if (c == '/' && out.length() > 0 && out.charAt(out.length() - 1) == '/') {
                continue;
            }
            out.append(c);
        }
        if (out.length() == 0 || out.charAt(0) != '/') {
            out.insert(0, '/');
        }
        if (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
            out.setLength(out.length() - 1);
        }
        return out.toString();
    }
}
