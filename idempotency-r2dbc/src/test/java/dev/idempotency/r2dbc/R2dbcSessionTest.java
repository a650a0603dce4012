package dev.idempotency.r2dbc;

import static dev.idempotency.r2dbc.R2dbcTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The store leaves a pooled connection as it found it: no transaction open, and the session's
 * own statement timeout untouched, after every kind of call — one that found nothing, one that
 * wrote, one that failed.
 */
class R2dbcSessionTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void everyCallGivesTheConnectionBackOutsideATransactionWithTheSessionsTimeout(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            db.createTable(R2dbcStore.DEFAULT_TABLE);
            ConnectionPool pool = db.pool("session", 1);
            R2dbcStore store = R2dbcStore.builder(pool).statementTimeout(Duration.ofMillis(1500)).build();
            String before = sessionTimeout(pool, dialect);
            RecordKey key = new RecordKey("tenant", "", "POST", "/orders", "key-" + UUID.randomUUID());

            assertThat(await(store.find(key, NOW))).isEmpty();
            assertSessionAsFound(pool, dialect, before);
            AsyncReserveResult.Acquired won = (AsyncReserveResult.Acquired) await(
                    store.reserve(key, "fp", NOW, Duration.ofSeconds(30), Duration.ofHours(1)));
            assertSessionAsFound(pool, dialect, before);
            assertThat(await(won.reservation().complete(new StoredResponse(201, "text/plain", Map.of(),
                    "made".getBytes(StandardCharsets.UTF_8))))).isTrue();
            assertThat(await(store.find(key, NOW))).isPresent();
            assertSessionAsFound(pool, dialect, before);

            R2dbcStore wrongTable = R2dbcStore.builder(pool).tableName("no_such_table").build();
            assertThat(catchThrowable(() -> await(wrongTable.find(key, NOW))))
                    .isInstanceOf(StorageUnavailableException.class);
            assertSessionAsFound(pool, dialect, before);
        }
    }

    private static void assertSessionAsFound(ConnectionPool pool, R2dbcStore.Dialect dialect, String before) {
        Connection c = await(Mono.from(pool.create()).toFuture());
        try {
            assertThat(c.isAutoCommit()).as("no transaction left open").isTrue();
        } finally {
            await(Mono.from(c.close()).toFuture());
        }
        assertThat(sessionTimeout(pool, dialect)).isEqualTo(before);
    }

    /** The session's statement timeout, read on the pool's one connection. */
    private static String sessionTimeout(ConnectionPool pool, R2dbcStore.Dialect dialect) {
        String sql = dialect == R2dbcStore.Dialect.POSTGRESQL ? "SELECT current_setting('statement_timeout') AS t"
                : "SELECT CAST(@@max_statement_time AS CHAR) AS t";
        List<String> values = await(Mono.usingWhen(Mono.from(pool.create()),
                c -> Flux.from(c.createStatement(sql).execute())
                        .concatMap(result -> result.map((row, metadata) -> row.get("t", String.class))).collectList(),
                Connection::close).toFuture());
        return values.get(0);
    }
}
