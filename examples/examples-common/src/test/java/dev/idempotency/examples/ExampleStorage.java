package dev.idempotency.examples;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Where a contract test class ({@link ExampleContractTest}) keeps the service's records: the
 * environment that selects that storage, the store the start-up line must name, and a count of
 * the records. Registered as an extension by the class that uses it, so it is set up before the
 * class's tests and torn down after them:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ExampleStorage STORAGE = ExampleStorage.redis();
 *
 * @Override
 * protected ExampleStorage storage() {
 *     return STORAGE;
 * }
 * }</pre>
 */
public abstract class ExampleStorage implements BeforeAllCallback, AfterAllCallback {

    /** Embedded H2 in memory and the JDBC store: the services' defaults. */
    public static final ExampleStorage EMBEDDED_H2 = new ExampleStorage("JdbcStore") {
        @Override
        Map<String, String> environment() {
            return Map.of();
        }

        @Override
        OptionalLong storedRecords() {
            return OptionalLong.empty();
        }
    };

    private final String expectedStore;

    private ExampleStorage(String expectedStore) {
        this.expectedStore = expectedStore;
    }

    /**
     * The environment every start adds to its test's own variables (which win), read before each
     * start, so storage may be reset there.
     */
    abstract Map<String, String> environment();

    /** How many idempotency records the storage holds now; empty when they cannot be counted. */
    abstract OptionalLong storedRecords() throws Exception;

    /** The store's class name the start-up line must show. */
    final String expectedStore() {
        return expectedStore;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
    }

    /** A throwaway key prefix on the local Redis ({@link RedisTestPrefix}); its keys are deleted after the class. */
    public static ExampleStorage redis() {
        return new ExampleStorage("RedisStore") {
            private RedisTestPrefix redis;

            @Override
            public void beforeAll(ExtensionContext context) {
                redis = new RedisTestPrefix();
            }

            @Override
            Map<String, String> environment() {
                return Map.of("REDIS_URL", redis.url(), "REDIS_KEY_PREFIX", redis.prefix());
            }

            @Override
            OptionalLong storedRecords() {
                return OptionalLong.of(redis.count());
            }

            @Override
            public void afterAll(ExtensionContext context) {
                redis.close();
            }
        };
    }

    /**
     * A Redis Cluster of one node holding every slot ({@link OneNodeRedisCluster}, from the local
     * {@code redis-server}; the class is skipped when there is none), selected with
     * {@code redis-cluster://}.
     */
    public static ExampleStorage redisCluster() {
        return new ExampleStorage("RedisStore") {
            private OneNodeRedisCluster cluster;

            @Override
            public void beforeAll(ExtensionContext context) throws Exception {
                assumeTrue(OneNodeRedisCluster.available(), "redis-server is not installed");
                cluster = OneNodeRedisCluster.start();
            }

            @Override
            Map<String, String> environment() {
                return Map.of("REDIS_URL", cluster.url(), "REDIS_KEY_PREFIX", "example-cluster:");
            }

            @Override
            OptionalLong storedRecords() {
                return OptionalLong.of(cluster.keys());
            }

            @Override
            public void afterAll(ExtensionContext context) throws Exception {
                if (cluster != null) {
                    cluster.close();
                }
            }
        };
    }

    /** How a PostgreSQL {@code DATABASE_URL} is spelled. */
    public enum UrlForm {
        /** {@code jdbc:postgresql://…} */
        JDBC,
        /** {@code postgresql://user@host:port/db?…} */
        POSTGRESQL
    }

    /**
     * A throwaway schema on the local PostgreSQL ({@link PostgresTestSchema}), emptied before each
     * start (the contract counts orders from zero) and dropped after the class.
     *
     * @param expectedStore the store the service picks for that URL
     * @param extra         more variables for every start (a mode)
     */
    public static ExampleStorage postgres(UrlForm form, String expectedStore, Map<String, String> extra) {
        return new ExampleStorage(expectedStore) {
            private PostgresTestSchema schema;

            @Override
            public void beforeAll(ExtensionContext context) {
                schema = new PostgresTestSchema();
            }

            @Override
            Map<String, String> environment() {
                schema.reset();
                Map<String, String> env = new HashMap<>(extra);
                env.put("DATABASE_URL", form == UrlForm.JDBC ? schema.jdbcUrl() : schema.postgresqlUrl());
                return env;
            }

            @Override
            OptionalLong storedRecords() throws Exception {
                return OptionalLong.of(schema.queryLong("SELECT count(*) FROM idempotency_keys"));
            }

            @Override
            public void afterAll(ExtensionContext context) {
                schema.close();
            }
        };
    }
}
