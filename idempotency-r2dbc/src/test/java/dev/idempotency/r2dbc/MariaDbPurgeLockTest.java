package dev.idempotency.r2dbc;

import static dev.idempotency.r2dbc.R2dbcTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import io.r2dbc.spi.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * MariaDB purges under JdbcStore's named purge lock: while another session holds it, a batch
 * deletes nothing; once it is free, the batch deletes the expired rows.
 */
class MariaDbPurgeLockTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void aBatchSkipsWhileAnotherInstanceHoldsThePurgeLock() {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.mariadb()) {
            db.createTable(R2dbcStore.DEFAULT_TABLE);
            R2dbcStore store = R2dbcStore.create(db.pool("purge", 2));
            for (int i = 0; i < 3; i++) {
                RecordKey key = new RecordKey("tenant", "", "POST", "/orders", "key-" + UUID.randomUUID());
                assertThat(await(store.insertCompleted(key, "fp", new StoredResponse(200, null, Map.of(), new byte[0]),
                        T0, Duration.ofMinutes(1)))).isTrue();
            }
            Instant later = T0.plus(Duration.ofHours(1));
            SqlCatalog sql = SqlCatalog.of(SqlDialect.MARIADB, R2dbcStore.DEFAULT_TABLE);
            Connection other = await(Mono.from(db.factory("other", db.port()).create()).toFuture());
            try {
                assertThat(lock(other, sql.questionMarks("takePurgeLock").text(), sql)).isTrue();

                assertThat(await(store.purgeExpired(later, 100))).isZero();

                assertThat(lock(other, sql.questionMarks("releasePurgeLock").text(), sql)).isTrue();
            } finally {
                await(Mono.from(other.close()).toFuture());
            }
            assertThat(await(store.purgeExpired(later, 2))).isEqualTo(2);
            assertThat(await(store.purgeExpired(later, 2))).isEqualTo(1);
        }
    }

    private static boolean lock(Connection c, String call, SqlCatalog sql) {
        return await(Flux.from(c.createStatement(call).bind(0, sql.table().label()).execute())
                .concatMap(result -> result.map((row, metadata) -> Long.valueOf(1).equals(row.get(0, Long.class))))
                .next().toFuture());
    }
}
