package dev.idempotency.r2dbc;

import static dev.idempotency.r2dbc.R2dbcTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.RecordState;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reserve mode's completing UPDATE loses its connection ({@code pg_terminate_backend}, as a
 * failover or an administrator would): the engine completes again with the same owner token on
 * another connection, and the record ends COMPLETED after one handler run — the key is neither
 * released nor left to lapse. A row lock held by the test keeps each UPDATE waiting where the
 * test can find and terminate it.
 */
class PostgresR2dbcCompletionRetryTest {

    private static final String LABEL = "completion-retry";

    private static R2dbcTestDatabase db;

    @BeforeAll
    static void createTable() {
        db = R2dbcTestDatabase.postgres();
        db.createTable(R2dbcStore.DEFAULT_TABLE);
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @Test
    void aTerminatedCompletionIsCompletedAgainOnAnotherConnection() throws Exception {
        R2dbcStore store = R2dbcStore.create(db.pool(LABEL, 4));
        List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        ConnectionFactory side = db.factory("side", db.port());
        Connection locker = await(Mono.from(side.create()).toFuture());
        Connection probe = await(Mono.from(side.create()).toFuture());
        try (IdempotencyEngine engine = new IdempotencyEngine(store,
                IdempotencyConfig.builder().listener(events::add).build())) {
            Decision first = await(engine.beforeAsync(post("order-7")));
            assertThat(first).isInstanceOf(Decision.Proceed.class);
            runs.incrementAndGet();
            Execution execution = ((Decision.Proceed) first).execution();

            await(Mono.from(locker.beginTransaction())
                    .then(R2dbcTestDatabase.run(locker, "SELECT * FROM idempotency_keys FOR UPDATE")).toFuture());
            CompletableFuture<Optional<HttpReply>> finished = execution.finishAsync(created()).toCompletableFuture();

            int terminated = waitingUpdate(probe, -1);
            assertThat(pids(probe, "SELECT pg_terminate_backend(" + terminated + ")::int")).containsExactly(1);
            int retried = waitingUpdate(probe, terminated);
            assertThat(retried).as("the complete, asked again on another connection").isNotEqualTo(terminated);
            assertThat(states(probe)).as("still in flight meanwhile").containsExactly("IN_FLIGHT");
            assertThat(finished.get(20, TimeUnit.SECONDS)).as("the handler's response goes out meanwhile").isEmpty();

            await(Mono.from(locker.rollbackTransaction()).toFuture());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!events.stream().map(IdempotencyEvent::outcome).toList().contains(Outcome.EXECUTED_STORED)) {
                assertThat(System.nanoTime()).as("the retried complete lands").isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(await(store.find(execution.key(), Instant.now())).orElseThrow().state())
                    .isEqualTo(RecordState.COMPLETED);
            Decision duplicate = await(engine.beforeAsync(post("order-7")));
            if (duplicate instanceof Decision.Proceed) {
                runs.incrementAndGet();
            }
            assertThat(duplicate).isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) duplicate).isReplay()).isTrue();
            assertThat(runs).as("handler runs").hasValue(1);
            assertThat(events).extracting(IdempotencyEvent::outcome)
                    .contains(Outcome.EXECUTED_STORED).doesNotContain(Outcome.PERSIST_FAILED);
        } finally {
            await(Mono.from(locker.close()).then(Mono.from(probe.close())).toFuture());
        }
    }

    /** The pid of the store's UPDATE waiting for the test's row lock, other than {@code except}; waits up to 20 s. */
    private static int waitingUpdate(Connection probe, int except) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            List<Integer> pids = pids(probe, "SELECT pid FROM pg_stat_activity WHERE application_name LIKE '" + LABEL
                    + "-%' AND wait_event_type = 'Lock' AND query ILIKE 'UPDATE%' AND pid <> " + except);
            if (!pids.isEmpty()) {
                return pids.get(0);
            }
            assertThat(System.nanoTime()).as("an UPDATE of the store waits for the lock").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static List<Integer> pids(Connection c, String sql) {
        return await(Flux.from(c.createStatement(sql).execute())
                .concatMap(result -> result.map((row, metadata) -> row.get(0, Integer.class)))
                .collectList().toFuture());
    }

    private static List<String> states(Connection c) {
        return await(Flux.from(c.createStatement("SELECT state FROM idempotency_keys").execute())
                .concatMap(result -> result.map((row, metadata) -> row.get(0, String.class)))
                .collectList().toFuture());
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(key), "Content-Type",
                List.of("application/json")), "{\"sku\":1}".getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created() {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{\"order\":7}".getBytes(StandardCharsets.UTF_8));
    }
}
