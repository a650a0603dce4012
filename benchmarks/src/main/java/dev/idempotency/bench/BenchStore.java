package dev.idempotency.bench;

import java.util.Locale;
import java.util.Set;

/**
 * Where an example service keeps its idempotency records ({@code IDEMPOTENCY_STORE}): the
 * {@code JdbcStore} next to the orders, {@code PgStore} on the reactive Vert.x PostgreSQL client
 * (the Vert.x example only), {@code R2dbcStore} (the WebFlux example only), or {@code RedisStore}
 * (every example; Quarkus's on Lettuce 6.8).
 * The orders stay in PostgreSQL in every case.
 */
enum BenchStore {
    /** {@code JdbcStore} in the service's PostgreSQL schema: every mode, every framework. */
    JDBC("jdbc", "JdbcStore", Set.of(HttpConfig.values())),
    /** {@code PgStore} (idempotency-vertx-sql): Vert.x only; reserve, atomic and their replays. */
    PG("pg", "PgStore", Set.of(HttpConfig.RESERVE, HttpConfig.ATOMIC, HttpConfig.REPLAY)),
    /**
     * {@code RedisStore}: every framework; no atomic mode (orders and records share no transaction).
     */
    REDIS("redis", "RedisStore", Set.of(HttpConfig.OPTIMISTIC, HttpConfig.RESERVE, HttpConfig.REPLAY)),
    /** {@code R2dbcStore} (idempotency-r2dbc) on the orders' R2DBC pool: WebFlux only; every idempotent mode. */
    R2DBC("r2dbc", "R2dbcStore", Set.of(HttpConfig.OPTIMISTIC, HttpConfig.RESERVE, HttpConfig.ATOMIC, HttpConfig.REPLAY));

    private final String label;
    private final String storeClass;
    private final Set<HttpConfig> configs;

    BenchStore(String label, String storeClass, Set<HttpConfig> configs) {
        this.label = label;
        this.storeClass = storeClass;
        this.configs = configs;
    }

    String label() {
        return label;
    }

    /** The class name the service's start-up line names when it runs on this store. */
    String storeClass() {
        return storeClass;
    }

    /**
     * Whether this store has a row for {@code config} of {@code framework}. {@code off} opens no
     * store at all (the middleware is not there), so it is one row per framework, under {@link #JDBC}.
     */
    boolean runs(String framework, HttpConfig config) {
        return configs.contains(config) && (this != PG || framework.equals("vertx"))
                && (this != R2DBC || framework.equals("webflux"));
    }

    static BenchStore of(String label) {
        for (BenchStore store : values()) {
            if (store.label.equals(label.trim().toLowerCase(Locale.ROOT))) {
                return store;
            }
        }
        throw new IllegalArgumentException("unknown store '" + label + "' (jdbc, pg, redis or r2dbc)");
    }
}
