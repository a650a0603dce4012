package dev.idempotency.examples;

import dev.idempotency.core.Mode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * How an example service is started, read from the environment.
 *
 * <table>
 *   <caption>Environment variables</caption>
 *   <tr><th>variable</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code HOST}</td><td>unset: every interface</td><td>the bind address, e.g. {@code 127.0.0.1}</td></tr>
 *   <tr><td>{@code PORT}</td><td>8080</td><td>the HTTP port; 0 picks a free one</td></tr>
 *   <tr><td>{@code DATABASE_URL}</td><td>none: embedded H2 in memory</td><td>a JDBC URL, e.g.
 *       {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}, or a PostgreSQL URL
 *       {@code postgresql://user:password@host:port/db} ({@code postgres://} too), which the JDBC
 *       examples convert to the JDBC form ({@link #jdbcUrl()}) and the Vert.x example opens with its
 *       reactive client ({@link #postgres()})</td></tr>
 *   <tr><td>{@code REDIS_URL}</td><td>unset</td><td>the idempotency records in Redis ({@code RedisStore}):
 *       {@code redis://host:port} (or {@code rediss://}, Lettuce's URI syntax) for a standalone server,
 *       {@code redis-cluster://host1:port1,host2:port2} for a cluster's seed nodes</td></tr>
 *   <tr><td>{@code REDIS_KEY_PREFIX}</td><td>{@code idempotency:}</td><td>the start of every key the store writes</td></tr>
 *   <tr><td>{@code IDEMPOTENCY_STORE}</td><td>chosen: {@code redis} with {@code REDIS_URL}, else {@code pg}
 *       in the Vert.x example and {@code r2dbc} in the WebFlux one on PostgreSQL, else {@code jdbc}</td><td>{@code jdbc},
 *       {@code redis}, {@code pg} or {@code r2dbc}</td></tr>
 *   <tr><td>{@code IDEMPOTENCY_MODE}</td><td>{@code reserve}</td><td>{@code reserve}, {@code optimistic} or
 *       {@code atomic}</td></tr>
 *   <tr><td>{@code IDEMPOTENCY}</td><td>{@code on}</td><td>{@code off} serves the same routes without the
 *       middleware (the baseline for benchmarks)</td></tr>
 * </table>
 *
 * @param port               the HTTP port, 0 for any free one
 * @param databaseUrl        the JDBC URL, empty for the embedded H2 database
 * @param mode               the engine's mode
 * @param idempotencyEnabled false when {@code IDEMPOTENCY=off}
 * @param host               the bind address ({@code HOST}), empty for the framework's default (every interface)
 * @param redisUrl           {@code REDIS_URL}, empty when unset
 * @param redisKeyPrefix     {@code REDIS_KEY_PREFIX}, or {@code idempotency:}
 * @param store              {@code IDEMPOTENCY_STORE}, empty to let {@link #store(StoreKind)} choose
 */
public record ExampleSettings(int port, Optional<String> databaseUrl, Mode mode, boolean idempotencyEnabled,
                              Optional<String> host, Optional<String> redisUrl, String redisKeyPrefix,
                              Optional<StoreKind> store) {

    /** The default {@code REDIS_KEY_PREFIX}, {@code RedisStore}'s own default. */
    public static final String DEFAULT_REDIS_KEY_PREFIX = "idempotency:";

    /** Where the idempotency records are kept. */
    public enum StoreKind {
        /** {@code JdbcStore}, in the {@code DATABASE_URL} database next to the orders. */
        JDBC,
        /** {@code RedisStore} at {@code REDIS_URL}; the orders stay in {@code DATABASE_URL}'s database. */
        REDIS,
        /** {@code PgStore} on the reactive Vert.x PostgreSQL client (the Vert.x example only). */
        PG,
        /** {@code R2dbcStore} on an R2DBC PostgreSQL pool (the WebFlux example only). */
        R2DBC
    }

    public ExampleSettings {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("PORT must be 0..65535, was " + port);
        }
        databaseUrl.ifPresent(ExampleSettings::checkDatabaseUrl);
        redisUrl.ifPresent(ExampleSettings::checkRedisUrl);
        if (redisKeyPrefix.isEmpty() || redisKeyPrefix.contains("{") || redisKeyPrefix.contains("}")) {
            throw new IllegalArgumentException("REDIS_KEY_PREFIX must be non-empty and without braces, was '"
                    + redisKeyPrefix + "'");
        }
        if (store.orElse(null) == StoreKind.REDIS && redisUrl.isEmpty()) {
            throw new IllegalArgumentException("IDEMPOTENCY_STORE=redis needs REDIS_URL (e.g. redis://127.0.0.1:6379)");
        }
        if ((store.orElse(null) == StoreKind.PG || store.orElse(null) == StoreKind.R2DBC)
                && postgresOf(databaseUrl).isEmpty()) {
            throw new IllegalArgumentException("IDEMPOTENCY_STORE=" + store.get().name().toLowerCase(Locale.ROOT)
                    + " needs a PostgreSQL DATABASE_URL "
                    + "(postgresql://user@host:port/db or jdbc:postgresql://host:port/db?user=...)");
        }
        if (idempotencyEnabled && mode == Mode.ATOMIC && usesRedis(redisUrl, store)) {
            throw new IllegalArgumentException("IDEMPOTENCY_MODE=atomic cannot be used with REDIS_URL: the atomic mode "
                    + "commits the order and the idempotency record in one transaction, but the orders are in the "
                    + "SQL database (DATABASE_URL) and the records in Redis, which share no transaction. Use "
                    + "IDEMPOTENCY_MODE=reserve or optimistic with Redis, or unset REDIS_URL (or IDEMPOTENCY_STORE=jdbc) "
                    + "for the atomic mode.");
        }
    }

    private static boolean usesRedis(Optional<String> redisUrl, Optional<StoreKind> store) {
        return store.map(s -> s == StoreKind.REDIS).orElse(redisUrl.isPresent());
    }

    /** {@link #store(StoreKind)} for an example with {@code PgStore} ({@code true}: Vert.x) or without. */
    public StoreKind store(boolean pgStoreAvailable) {
        return store(pgStoreAvailable ? StoreKind.PG : null);
    }

    /**
     * The store this service uses: {@code IDEMPOTENCY_STORE} when set; otherwise Redis when
     * {@code REDIS_URL} is set, else the framework's own PostgreSQL store when the database is
     * PostgreSQL, else {@code JdbcStore}.
     *
     * @param postgresStore the framework's own PostgreSQL store ({@link StoreKind#PG} in the Vert.x
     *                      example, {@link StoreKind#R2DBC} in the WebFlux one), null when it has none
     * @throws IllegalArgumentException for {@code IDEMPOTENCY_STORE=pg} or {@code r2dbc} in an example without it
     */
    public StoreKind store(StoreKind postgresStore) {
        if (store.isPresent()) {
            if (store.get() == StoreKind.PG && postgresStore != StoreKind.PG) {
                throw new IllegalArgumentException("IDEMPOTENCY_STORE=pg: PgStore (the reactive Vert.x client) is only "
                        + "available in the Vert.x example; use jdbc or redis here");
            }
            if (store.get() == StoreKind.R2DBC && postgresStore != StoreKind.R2DBC) {
                throw new IllegalArgumentException("IDEMPOTENCY_STORE=r2dbc: R2dbcStore is only available in the "
                        + "WebFlux example; use jdbc or redis here");
            }
            return store.get();
        }
        if (redisUrl.isPresent()) {
            return StoreKind.REDIS;
        }
        return postgresStore != null && postgres().isPresent() ? postgresStore : StoreKind.JDBC;
    }

    /**
     * {@code DATABASE_URL} as a JDBC URL: a {@code postgresql://} / {@code postgres://} URL is
     * converted ({@link PostgresUrl#jdbcUrl()}); a JDBC URL is returned as it is. Empty for the
     * embedded H2 database.
     */
    public Optional<String> jdbcUrl() {
        return databaseUrl.map(url -> url.startsWith("jdbc:") ? url : PostgresUrl.parse(url).jdbcUrl());
    }

    /**
     * {@link #jdbcUrl()}, or a fresh embedded H2 database in memory: a name of its own, so two
     * services in one JVM (tests) never share rows.
     */
    public String jdbcUrlOrFreshH2() {
        return jdbcUrl().orElseGet(() -> "jdbc:h2:mem:example-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    /** {@code DATABASE_URL} taken apart when it names PostgreSQL (either form); empty otherwise. */
    public Optional<PostgresUrl> postgres() {
        return postgresOf(databaseUrl);
    }

    /**
     * A {@code postgresql://} URL must parse; a JDBC URL the parser does not take (several hosts,
     * {@code jdbc:postgresql:db}) is left to the JDBC driver, and counts as not PostgreSQL here.
     */
    private static Optional<PostgresUrl> postgresOf(Optional<String> databaseUrl) {
        return databaseUrl.filter(PostgresUrl::isPostgres).flatMap(url -> {
            if (!url.startsWith("jdbc:")) {
                return Optional.of(PostgresUrl.parse(url));
            }
            try {
                return Optional.of(PostgresUrl.parse(url));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        });
    }

    private static void checkDatabaseUrl(String url) {
        if (PostgresUrl.isPostgres(url) && !url.startsWith("jdbc:")) {
            PostgresUrl.parse(url); // throws naming DATABASE_URL
        } else if (!url.startsWith("jdbc:")) {
            throw new IllegalArgumentException("DATABASE_URL must be a JDBC URL (jdbc:...) or a PostgreSQL URL "
                    + "(postgresql://...), was '" + PostgresUrl.withoutCredentials(url) + "'");
        }
    }

    /** The schemes REDIS_URL accepts. */
    static final List<String> REDIS_SCHEMES = List.of("redis://", "rediss://", "redis-cluster://");

    private static void checkRedisUrl(String url) {
        if (REDIS_SCHEMES.stream().noneMatch(url::startsWith)) {
            throw new IllegalArgumentException("REDIS_URL must start with redis://, rediss:// or redis-cluster:// "
                    + "(redis-cluster://host1:port1,host2:port2 for a cluster's seed nodes), was '"
                    + PostgresUrl.withoutCredentials(url) + "'");
        }
    }

    /** The defaults: port 8080, embedded H2, reserve mode, idempotency on. */
    public static ExampleSettings defaults() {
        return from(Map.of());
    }

    /** Reads {@link System#getenv()}. */
    public static ExampleSettings fromEnvironment() {
        return from(System.getenv());
    }

    /**
     * {@link #fromEnvironment()} for a {@code main}: a variable that makes no sense (or a
     * combination, such as {@code REDIS_URL} with {@code IDEMPOTENCY_MODE=atomic}) prints
     * {@code Cannot start the example: <why>} to standard error and exits with status 2.
     */
    public static ExampleSettings fromEnvironmentOrExit() {
        return fromEnvironmentOrExit(settings -> { });
    }

    /**
     * {@link #fromEnvironmentOrExit()} with the framework's own refusals: {@code refusals} throws
     * an {@link IllegalArgumentException} saying why for a setting that framework's example cannot
     * run (the WebFlux example: the atomic mode anywhere but on R2DBC).
     */
    public static ExampleSettings fromEnvironmentOrExit(Consumer<ExampleSettings> refusals) {
        try {
            ExampleSettings settings = fromEnvironment();
            refusals.accept(settings);
            return settings;
        } catch (IllegalArgumentException e) {
            System.err.println("Cannot start the example: " + e.getMessage());
            System.exit(2);
            throw e; // not reached
        }
    }

    /**
     * Reads the variables from {@code env}; blank values count as unset.
     *
     * @throws IllegalArgumentException naming the variable whose value makes no sense
     */
    public static ExampleSettings from(Map<String, String> env) {
        return new ExampleSettings(port(value(env, "PORT")), value(env, "DATABASE_URL"),
                mode(value(env, "IDEMPOTENCY_MODE")), enabled(value(env, "IDEMPOTENCY")), value(env, "HOST"),
                value(env, "REDIS_URL"), value(env, "REDIS_KEY_PREFIX").orElse(DEFAULT_REDIS_KEY_PREFIX),
                storeKind(value(env, "IDEMPOTENCY_STORE")));
    }

    /** The same settings on another port (tests use 0). */
    public ExampleSettings withPort(int port) {
        return new ExampleSettings(port, databaseUrl, mode, idempotencyEnabled, host, redisUrl, redisKeyPrefix, store);
    }

    /** Where a client reaches the service: {@code HOST} (bracketed when IPv6), {@code localhost} when unset. */
    public String displayHost() {
        return host.map(h -> h.indexOf(':') >= 0 && !h.startsWith("[") ? "[" + h + "]" : h).orElse("localhost");
    }

    private static Optional<String> value(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
    }

    private static int port(Optional<String> value) {
        try {
            return value.map(Integer::parseInt).orElse(8080);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("PORT must be a number, was '" + value.get() + "'");
        }
    }

    private static Mode mode(Optional<String> value) {
        String mode = value.orElse("reserve").toLowerCase(Locale.ROOT);
        return switch (mode) {
            case "reserve" -> Mode.RESERVE;
            case "optimistic" -> Mode.OPTIMISTIC;
            case "atomic" -> Mode.ATOMIC;
            default -> throw new IllegalArgumentException(
                    "IDEMPOTENCY_MODE must be reserve, optimistic or atomic, was '" + value.get() + "'");
        };
    }

    private static Optional<StoreKind> storeKind(Optional<String> value) {
        return value.map(v -> switch (v.toLowerCase(Locale.ROOT)) {
            case "jdbc" -> StoreKind.JDBC;
            case "redis" -> StoreKind.REDIS;
            case "pg" -> StoreKind.PG;
            case "r2dbc" -> StoreKind.R2DBC;
            default -> throw new IllegalArgumentException("IDEMPOTENCY_STORE must be jdbc, redis, pg or r2dbc, was '"
                    + v + "'");
        });
    }

    private static boolean enabled(Optional<String> value) {
        String enabled = value.orElse("on").toLowerCase(Locale.ROOT);
        return switch (enabled) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new IllegalArgumentException("IDEMPOTENCY must be on or off, was '" + value.get() + "'");
        };
    }
}
