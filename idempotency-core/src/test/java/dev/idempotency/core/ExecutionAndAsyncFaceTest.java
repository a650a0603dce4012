package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An Execution finishes once; the asynchronous face runs the same rules without blocking its caller. */
class ExecutionAndAsyncFaceTest {

    private static final String BODY = "{\"item\":\"book\"}";

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryStore memory = new InMemoryStore();
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final List<IdempotencyEngine> engines = new ArrayList<>();

    @AfterEach
    void close() {
        engines.forEach(IdempotencyEngine::close);
        workers.shutdownNow();
    }

    private IdempotencyConfig config(UnaryOperator<IdempotencyConfig.Builder> customize) {
        return customize.apply(IdempotencyConfig.builder().clock(clock).listener(events::add)).build();
    }

    private IdempotencyEngine blocking(Store store, UnaryOperator<IdempotencyConfig.Builder> customize) {
        IdempotencyEngine engine = new IdempotencyEngine(store, config(customize));
        engines.add(engine);
        return engine;
    }

    private IdempotencyEngine async(AsyncStore store, UnaryOperator<IdempotencyConfig.Builder> customize) {
        IdempotencyEngine engine = new IdempotencyEngine(store, config(customize));
        engines.add(engine);
        return engine;
    }

    private static RequestView post(String key, String body) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), body.getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created(String body) {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                body.getBytes(StandardCharsets.UTF_8));
    }

    private static Execution proceed(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        return ((Decision.Proceed) decision).execution();
    }

    private static HttpReply respond(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        return ((Decision.Respond) decision).reply();
    }

    private List<Outcome> outcomes() {
        return events.stream().map(IdempotencyEvent::outcome).filter(o -> o != Outcome.REPLAYED).toList();
    }

    @Test
    void aSecondFinishChangesNothing() {
        IdempotencyEngine engine = blocking(memory, c -> c);
        Execution execution = proceed(engine.before(post("k1", BODY)));

        assertThat(execution.finish(created("{\"id\":1}"))).isEmpty();
        assertThat(execution.finish(created("{\"id\":2}"))).as("no-op, same answer").isEmpty();
        execution.fail(new IllegalStateException("late"));

        assertThat(outcomes()).containsExactly(Outcome.EXECUTED_STORED);
        assertThat(new String(respond(engine.before(post("k1", BODY))).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"id\":1}");
    }

    @Test
    void aFinishAfterAFailChangesNothing() {
        IdempotencyEngine engine = blocking(memory, c -> c);
        Execution execution = proceed(engine.before(post("k1", BODY)));

        execution.fail(new IllegalStateException("handler threw"));
        assertThat(execution.finish(created("{\"id\":1}"))).isEmpty();

        assertThat(outcomes()).containsExactly(Outcome.EXECUTION_FAILED);
        proceed(engine.before(post("k1", BODY)));
    }

    @Test
    void inTheAtomicModeASecondFinishIsNotA503() {
        IdempotencyEngine engine = blocking(TestStores.transactional(memory), c -> c.mode(Mode.ATOMIC));
        Execution execution = proceed(engine.before(post("k1", BODY)));

        assertThat(execution.finish(created("{}"))).isEmpty();
        assertThat(execution.finish(created("{}"))).isEmpty();

        assertThat(outcomes()).containsExactly(Outcome.EXECUTED_STORED);
    }

    @Test
    void concurrentFinishesReachTheStoreOnce() throws Exception {
        IdempotencyEngine engine = blocking(memory, c -> c);
        Execution execution = proceed(engine.before(post("k1", BODY)));
        int threads = 16;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Optional<HttpReply>>> finishes = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            finishes.add(CompletableFuture.supplyAsync(() -> {
                await(start);
                return n % 2 == 0 ? execution.finish(created("{}")) : Optional.<HttpReply>empty();
            }, workers));
            if (n % 2 == 1) {
                workers.submit(() -> {
                    await(start);
                    execution.fail(new IllegalStateException("racing"));
                });
            }
        }
        start.countDown();
        CompletableFuture.allOf(finishes.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        workers.shutdown();
        assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

        assertThat(outcomes()).hasSize(1).first().isIn(Outcome.EXECUTED_STORED, Outcome.EXECUTION_FAILED);
    }

    @Test
    void theAsynchronousFaceRunsTheSameRules() throws Exception {
        IdempotencyEngine engine = async(AsyncStore.of(memory, workers), c -> c);

        Execution execution = proceed(engine.beforeAsync(post("k1", BODY)).toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertThat(execution.finishAsync(created("{\"id\":7}")).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEmpty();

        HttpReply replay = respond(engine.beforeAsync(post("k1", BODY)).toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(new String(replay.body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":7}");
        assertThat(respond(engine.beforeAsync(post("k1", "{\"item\":\"pen\"}")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).status()).isEqualTo(422);
        assertThat(respond(engine.before(post("k1", BODY))).status()).as("the blocking face agrees").isEqualTo(201);
    }

    @Test
    void anAsynchronousDuplicateWaitsOnTheTimerNotInTheCallersThread() throws Exception {
        IdempotencyEngine engine = async(AsyncStore.of(memory, workers),
                c -> c.inFlightWait(Duration.ofSeconds(5)).inFlightPollInterval(Duration.ofMillis(5)));
        Execution first = proceed(engine.before(post("k1", BODY)));

        CompletableFuture<Decision> waiting = engine.beforeAsync(post("k1", BODY)).toCompletableFuture();
        Thread.sleep(50);
        assertThat(waiting).as("returned to the caller while the first is in flight").isNotDone();

        first.finish(created("{\"id\":1}"));
        HttpReply reply = respond(waiting.get(5, TimeUnit.SECONDS));
        assertThat(reply.header("Idempotent-Replayed")).isEqualTo("true");
    }

    @Test
    void anAsynchronousStoreFailureIsA503NotAFailedStage() throws Exception {
        AsyncStore down = AsyncStore.of(new DownStore(), workers);
        IdempotencyEngine engine = async(down, c -> c);

        HttpReply reply = respond(engine.beforeAsync(post("k1", BODY)).toCompletableFuture().get(5, TimeUnit.SECONDS));

        assertThat(reply.status()).isEqualTo(503);
        assertThat(reply.header("Retry-After")).isEqualTo("1");
    }

    @Test
    void theAtomicModeWorksThroughAnExecutor() throws Exception {
        IdempotencyEngine engine = async(AsyncStore.of(TestStores.transactional(memory), workers),
                c -> c.mode(Mode.ATOMIC));
        Execution execution = proceed(engine.beforeAsync(post("k1", BODY)).toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertThat(execution.unwrap(String.class)).contains("the transaction");
        execution.finish(created("{}"));

        assertThat(respond(engine.before(post("k1", BODY))).header("Idempotent-Replayed")).isEqualTo("true");
    }

    @Test
    void aLongBlockingWaitLoopsWithoutGrowingTheStack() throws Exception {
        AtomicInteger reserves = new AtomicInteger();
        List<Integer> depths = new CopyOnWriteArrayList<>();
        Store counting = new TestStores.Forwarding(memory) {
            @Override
            public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                         Duration ttl) {
                reserves.incrementAndGet();
                depths.add(Thread.currentThread().getStackTrace().length);
                return super.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            }
        };
        IdempotencyEngine engine = blocking(counting,
                c -> c.inFlightWait(Duration.ofSeconds(30)).inFlightPollInterval(Duration.ofMillis(1)));
        Execution first = proceed(engine.before(post("k1", BODY)));
        CompletableFuture<Decision> waiting = CompletableFuture.supplyAsync(() -> engine.before(post("k1", BODY)), workers);
        while (reserves.get() < 300) {
            Thread.sleep(5);
        }
        first.finish(created("{}"));

        respond(waiting.get(10, TimeUnit.SECONDS));
        assertThat(depths.subList(2, depths.size())).as("every poll at the depth of the first").containsOnly(depths.get(1));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class DownStore extends TestStores.Forwarding {
        DownStore() {
            super(new InMemoryStore());
        }

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE, "down", null);
        }
    }

}
