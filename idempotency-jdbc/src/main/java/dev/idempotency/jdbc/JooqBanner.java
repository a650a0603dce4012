package dev.idempotency.jdbc;

/**
 * jOOQ writes its logo and a "tip of the day" into the application's log the first time it renders
 * SQL, unless the system properties {@value #NO_LOGO} and {@value #NO_TIPS} are {@code true} by
 * then (jOOQ reads them once, when its rendering classes initialize). A library should not write
 * into its user's log on jOOQ's behalf: the store sets both to {@code true} before it builds any
 * statement — only when the application has not set them itself, so {@code -Dorg.jooq.no-logo=false}
 * still brings the logo back. If the application used jOOQ before the store, jOOQ has already read
 * them and this changes nothing.
 */
final class JooqBanner {

    static final String NO_LOGO = "org.jooq.no-logo";
    static final String NO_TIPS = "org.jooq.no-tips";

    private JooqBanner() {
    }

    /** Sets {@value #NO_LOGO} and {@value #NO_TIPS} to {@code true} where the application left them unset. */
    static void switchOff() {
        setUnlessSet(NO_LOGO);
        setUnlessSet(NO_TIPS);
    }

    private static void setUnlessSet(String property) {
        try {
            if (System.getProperty(property) == null) {
                System.setProperty(property, "true");
            }
        } catch (SecurityException e) {
            // Not allowed to touch system properties: jOOQ prints its banner, nothing worse.
        }
    }
}
