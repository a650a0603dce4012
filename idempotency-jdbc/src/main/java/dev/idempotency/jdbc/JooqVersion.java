package dev.idempotency.jdbc;

/**
 * The jOOQ on the classpath is one whose rendering this store was checked against. The store
 * renders its statements with jOOQ once and runs them as they came out ({@code SQL.md} is that
 * output, compared by a test), so an older jOOQ can change what runs: 3.19.0 renders the MySQL
 * upsert without its row alias ({@code AS excluded}), which would make a take-over keep the old
 * row's values. Older jOOQ is refused at {@code build()}; newer releases are accepted.
 */
final class JooqVersion {

    /** The oldest jOOQ this store accepts: the one it is built and tested with. */
    static final String MINIMUM = "3.19.39";

    private JooqVersion() {
    }

    /** @throws IllegalStateException when {@code version} is older than {@link #MINIMUM} */
    static void require(String version) {
        if (compare(version, MINIMUM) < 0) {
            throw new IllegalStateException("idempotency-jdbc needs jOOQ " + MINIMUM + " or newer, found " + version
                    + " on the classpath: an older jOOQ renders some of its statements differently");
        }
    }

    /** Compares dotted numeric versions ({@code 3.19.39}); a non-numeric part counts as 0. */
    static int compare(String a, String b) {
        String[] x = a.split("[.-]");
        String[] y = b.split("[.-]");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(number(x, i), number(y, i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static int number(String[] parts, int i) {
        if (i >= parts.length) {
            return 0;
        }
        try {
            return Integer.parseInt(parts[i]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
