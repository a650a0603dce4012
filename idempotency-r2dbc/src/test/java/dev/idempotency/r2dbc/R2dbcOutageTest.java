package dev.idempotency.r2dbc;

import static dev.idempotency.r2dbc.R2dbcTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

/**
 * The 503 mapping on real databases: a missing table, a statement held by a lock past the
 * statement timeout, an exhausted pool and a closed port, each on PostgreSQL and MariaDB.
 */
class R2dbcOutageTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    private static RecordKey key() {
        return new RecordKey("tenant", "", "POST", "/orders", "key-" + UUID.randomUUID());
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void aMissingTableIsNotProvisioned(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            R2dbcStore store = R2dbcStore.create(db.pool("missing", 2));

            Throwable failure = catchThrowable(() -> await(store.find(key(), NOW)));

            assertThat(failure).isInstanceOf(StorageUnavailableException.class)
                    .hasMessageStartingWith("Idempotency table idempotency_keys does not exist");
            assertThat(((StorageUnavailableException) failure).reason()).isEqualTo(Reason.NOT_PROVISIONED);
        }
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void aStatementHeldByALockPastTheTimeoutIsBusy(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            db.createTable(R2dbcStore.DEFAULT_TABLE);
            R2dbcStore store = R2dbcStore.builder(db.pool("timeout", 2)).statementTimeout(Duration.ofMillis(300)).build();
            RecordKey key = key();
            AsyncReserveResult.Acquired won = (AsyncReserveResult.Acquired) await(store.reserve(key, "fp", NOW, LEASE, TTL));
            Connection locker = await(Mono.from(db.factory("locker", db.port()).create()).toFuture());
            try {
                await(Mono.from(locker.beginTransaction())
                        .then(R2dbcTestDatabase.run(locker, "SELECT * FROM idempotency_keys FOR UPDATE")).toFuture());

                long started = System.nanoTime();
                Throwable failure = catchThrowable(() -> await(won.reservation().release()));
                Duration waited = Duration.ofNanos(System.nanoTime() - started);

                assertThat(failure).isInstanceOf(StorageUnavailableException.class)
                        .hasMessageStartingWith("Idempotency database busy");
                assertThat(((StorageUnavailableException) failure).reason()).isEqualTo(Reason.BUSY);
                assertThat(waited).isBetween(Duration.ofMillis(250), Duration.ofSeconds(3));
            } finally {
                await(Mono.from(locker.rollbackTransaction()).then(Mono.from(locker.close())).toFuture());
            }
            // The pool's connections are back in order: no transaction or bound left behind.
            assertThat(await(store.releaseIfOwned(key, won.reservation().ownerToken()))).isTrue();
            assertThat(await(store.find(key, NOW))).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void anExhaustedPoolIsBusy(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            db.createTable(R2dbcStore.DEFAULT_TABLE);
            ConnectionPool pool = db.pool("exhausted", 1, db.port(), Duration.ofMillis(300));
            R2dbcStore store = R2dbcStore.create(pool);
            Connection held = await(Mono.from(pool.create()).toFuture());
            try {
                Throwable failure = catchThrowable(() -> await(store.find(key(), NOW)));

                assertThat(failure).isInstanceOf(StorageUnavailableException.class);
                assertThat(((StorageUnavailableException) failure).reason()).isEqualTo(Reason.BUSY);
            } finally {
                await(Mono.from(held.close()).toFuture());
            }
            assertThat(await(store.find(key(), NOW))).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void aClosedPortIsUnreachable(R2dbcStore.Dialect dialect) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            R2dbcStore store = R2dbcStore.builder(db.pool("closed", 2, port)).dialect(dialect).build();

            for (Throwable failure : new Throwable[] {catchThrowable(() -> await(store.find(key(), NOW))),
                    catchThrowable(() -> await(store.reserve(key(), "fp", NOW, LEASE, TTL))),
                    catchThrowable(() -> await(store.verifySchema()))}) {
                assertThat(failure).isInstanceOf(StorageUnavailableException.class)
                        .hasMessageStartingWith("Idempotency database unreachable");
                assertThat(((StorageUnavailableException) failure).reason()).isEqualTo(Reason.UNREACHABLE);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void theDialectComesFromThePoolsDriver(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            assertThat(R2dbcStore.create(db.pool("dialect", 1)).dialect()).isEqualTo(dialect);
        }
        assertThatThrownBy(() -> R2dbcStore.Dialect.ofDriverName("Microsoft SQL Server"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PostgreSQL and MariaDB");
    }
}
