package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.testkit.InterceptingStore;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The completing UPDATE keeps failing after the handler ran (a trigger refuses it; each attempt
 * takes 2 s of the engine's clock): the client gets the handler's response untouched, the engine
 * asks again until the lease would end, the record stays in flight (nothing is released), and
 * once its lease lapses a retry runs again instead of waiting forever.
 */
class PostgresPersistFailureTest {

    private static TestDatabase db;

    @BeforeAll
    static void createSchema() {
        db = TestDatabase.postgres();
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @Test
    void aFailedCompletionLeavesTheResponseAloneAndTheKeyRecoverableAfterTheLease() throws Exception {
        JdbcStore store = JdbcStore.create(db.pool("persist", 4));
        store.createTableIfMissing();
        db.execute("CREATE FUNCTION refuse_completion() RETURNS trigger LANGUAGE plpgsql AS "
                + "'BEGIN RAISE EXCEPTION ''simulated persist failure''; END'");
        db.execute("CREATE TRIGGER refuse_completion BEFORE UPDATE ON idempotency_keys FOR EACH ROW "
                + "WHEN (NEW.state = 'COMPLETED') EXECUTE FUNCTION refuse_completion()");

        MutableClock clock = new MutableClock(Instant.parse("2031-07-01T10:00:00Z"));
        List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        Duration lease = Duration.ofSeconds(10);
        IdempotencyConfig config = IdempotencyConfig.builder().clock(clock).lease(lease).renewLease(false)
                .listener(events::add).build();
        AtomicInteger completes = new AtomicInteger();
        InterceptingStore timed = new InterceptingStore(store, operation -> {
            if (operation.equals("complete")) {
                completes.incrementAndGet();
                clock.advance(Duration.ofSeconds(2));
            }
        });
        try (IdempotencyEngine engine = new IdempotencyEngine(timed, config)) {
            String key = "persist-failure-1";
            CapturedResponse handlerResponse = Requests.created("{\"order\":42}");

            Decision first = engine.before(Requests.post("/orders", key, "{\"sku\":1}"));
            assertThat(first).isInstanceOf(Decision.Proceed.class);
            Optional<?> replacement = ((Decision.Proceed) first).execution().finish(handlerResponse);
            assertThat(replacement).as("the client gets the handler's own response").isEmpty();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (events.stream().noneMatch(e -> e.outcome() == IdempotencyEvent.Outcome.PERSIST_FAILED)) {
                assertThat(System.nanoTime()).as("the retries give up at the lease's end").isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(completes).as("attempts within the 10 s lease").hasValue(5);
            assertThat(events).extracting(IdempotencyEvent::outcome)
                    .containsOnlyOnce(IdempotencyEvent.Outcome.PERSIST_FAILED);
            RecordKey recordKey = new RecordKey("default", "POST", "/orders", key);
            assertThat(store.find(recordKey, clock.instant()).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);

            db.execute("DROP TRIGGER refuse_completion ON idempotency_keys");
            clock.advance(Duration.ofMillis(1));
            Decision afterLease = engine.before(Requests.post("/orders", key, "{\"sku\":1}"));
            assertThat(afterLease).as("the lapsed reservation is taken over").isInstanceOf(Decision.Proceed.class);
            ((Decision.Proceed) afterLease).execution().finish(handlerResponse);

            Decision replay = engine.before(Requests.post("/orders", key, "{\"sku\":1}"));
            assertThat(((Decision.Respond) replay).isReplay()).isTrue();
            assertThat(new String(((Decision.Respond) replay).reply().body(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"order\":42}");
        }
    }
}
