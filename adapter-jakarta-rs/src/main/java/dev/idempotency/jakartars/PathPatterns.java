package dev.idempotency.jakartars;

import java.util.List;

/**
 * Ant-style path patterns, matched segment by segment: {@code *} matches within one segment,
 * {@code **} any number of segments ({@code /orders/*}, {@code /api/**}).
 */
final class PathPatterns {

    private final List<String[]> patterns;

    PathPatterns(List<String> patterns) {
        this.patterns = patterns.stream().map(PathPatterns::segments).toList();
    }

    boolean matches(String path) {
        String[] segments = segments(path);
        for (String[] pattern : patterns) {
            if (match(pattern, 0, segments, 0)) {
                return true;
            }
        }
        return false;
    }

    private static String[] segments(String path) {
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        return trimmed.isEmpty() ? new String[0] : trimmed.split("/", -1);
    }

    private static boolean match(String[] pattern, int p, String[] path, int s) {
        if (p == pattern.length) {
            return s == path.length;
        }
        if (pattern[p].equals("**")) {
            for (int skip = s; skip <= path.length; skip++) {
                if (match(pattern, p + 1, path, skip)) {
                    return true;
                }
            }
            return false;
        }
        return s < path.length && segmentMatches(pattern[p], path[s]) && match(pattern, p + 1, path, s + 1);
    }

    private static boolean segmentMatches(String pattern, String segment) {
        int star = pattern.indexOf('*');
        if (star < 0) {
            return pattern.equals(segment);
        }
        String head = pattern.substring(0, star);
        String rest = pattern.substring(star + 1);
        if (!segment.startsWith(head)) {
            return false;
        }
        for (int i = head.length(); i <= segment.length(); i++) {
            if (segmentMatches(rest, segment.substring(i))) {
                return true;
            }
        }
        return false;
    }
}
