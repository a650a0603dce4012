package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExamplePool;
import dev.idempotency.examples.ExampleSettings;
import java.util.Map;

/**
 * The example's Agroal data sources (application.properties): one per database a
 * {@code DATABASE_URL} may name, as a data source's kind is fixed when the application is built.
 * At start the one for the database in use is made active, with that URL and the pool every example
 * has ({@link ExamplePool}); the others stay inactive and never connect.
 */
final class DataSources {

    /** The data source of each JDBC URL prefix; no {@code DATABASE_URL}: H2. */
    private static final Map<String, String> BY_PREFIX = Map.of(
            "jdbc:h2:", "h2", "jdbc:postgresql:", "postgresql", "jdbc:mariadb:", "mariadb");

    private DataSources() {
    }

    /**
     * The data source {@code settings} use.
     *
     * @throws IllegalArgumentException for a JDBC URL of another database
     */
    static String name(ExampleSettings settings) {
        String url = settings.jdbcUrl().orElse("jdbc:h2:");
        return BY_PREFIX.entrySet().stream().filter(e -> url.startsWith(e.getKey())).map(Map.Entry::getValue)
                .findFirst().orElseThrow(() -> new IllegalArgumentException("DATABASE_URL must name H2, PostgreSQL or "
                        + "MariaDB in the Quarkus example (jdbc:h2:, jdbc:postgresql:, jdbc:mariadb: or postgresql://)"));
    }

    /**
     * Quarkus's configuration for {@code settings}, as system properties: read when Quarkus starts,
     * after this.
     */
    static void configure(ExampleSettings settings) {
        String active = name(settings);
        BY_PREFIX.values().forEach(name -> System.setProperty(key(name, "active"), Boolean.toString(name.equals(active))));
        ExamplePool pool = ExamplePool.of(settings, true);
        System.setProperty(key(active, "jdbc.url"), settings.jdbcUrlOrFreshH2());
        System.setProperty(key(active, "jdbc.max-size"), Integer.toString(pool.maxSize()));
        System.setProperty(key(active, "jdbc.min-size"), Integer.toString(pool.minIdle()));
        // Fail fast when the database is gone, as ExamplePool says: waiting for a connection, opening
        // one, and checking one that has been idle (as HikariCP does after half a second).
        System.setProperty(key(active, "jdbc.acquisition-timeout"), pool.acquisitionTimeout().toString());
        System.setProperty(key(active, "jdbc.login-timeout"), pool.acquisitionTimeout().toString());
        System.setProperty(key(active, "jdbc.validation-query-timeout"), pool.validationTimeout().toString());
    }

    private static String key(String dataSource, String property) {
        return "quarkus.datasource." + dataSource + "." + property;
    }
}
