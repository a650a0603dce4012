package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnectOptions;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link PgStore#cachingStatements}: with it, the store's statements are prepared once per
 * connection and reused (they show in the session's {@code pg_prepared_statements}); without it
 * none is kept — each call is parsed and planned again. And every statement fits the limit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgStatementCacheTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    private PgTestDatabase db;

    @BeforeAll
    void start() {
        db = new PgTestDatabase();
        await(PgStore.create(db.pool("ddl", 1)).createTableIfMissing());
    }

    @AfterAll
    void stop() {
        db.close();
    }

    @Test
    void everyStatementFitsTheCacheLimit() {
        SqlCatalog sql = SqlCatalog.of(SqlDialect.POSTGRES,
                "a_schema_name_of_some_length.idempotency_keys_of_an_application");
        List<String> texts = List.of("reserve", "atomicReserve", "find", "insertCompleted", "complete", "release",
                "renew", "purge", "atomicSettingsWithTenant", "inFlightProbe").stream()
                .map(name -> sql.numberedCasts(name).text()).toList();

        assertThat(texts).allSatisfy(text -> assertThat(text.length()).isLessThan(PgStore.STATEMENT_CACHE_SQL_LIMIT));
        assertThat(sql.numberedCasts("reserve").text().length()).as("why the client's default limit is not enough")
                .isGreaterThan(SqlConnectOptions.DEFAULT_PREPARED_STATEMENT_CACHE_SQL_LIMIT);
    }

    @Test
    void withTheCacheTheStatementsStayPreparedOnTheConnection() {
        PgConnectOptions options = PgStore.cachingStatements(new PgConnectOptions(PgTestDatabase.server()));
        assertThat(preparedAfterThreeRequests(db.pool("cached", 1, options))).as("statements kept by the session")
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void withoutItNoneIsKept() {
        assertThat(preparedAfterThreeRequests(db.pool("uncached", 1))).isZero();
    }

    /** Three reserve-complete-find rounds on a pool of one connection, then that session's prepared statements. */
    private long preparedAfterThreeRequests(Pool pool) {
        PgStore store = PgStore.builder(pool).statementTimeout(Duration.ZERO).build();
        for (int i = 0; i < 3; i++) {
            RecordKey key = new RecordKey("t", "POST", "/orders", "cache-" + UUID.randomUUID());
            AsyncReserveResult reserved = store.reserve(key, "a".repeat(64), NOW, Duration.ofSeconds(30),
                    Duration.ofHours(1)).toCompletableFuture().join();
            assertThat(((AsyncReserveResult.Acquired) reserved).reservation()
                    .complete(new StoredResponse(201, null, Map.of(), new byte[] {1})).toCompletableFuture().join())
                    .isTrue();
            assertThat(store.find(key, NOW).toCompletableFuture().join()).isPresent();
        }
        SqlConnection c = await(pool.getConnection());
        try {
            return await(c.query("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%idempotency_keys%'")
                    .execute()).iterator().next().getLong(0);
        } finally {
            await(c.close());
        }
    }
}
