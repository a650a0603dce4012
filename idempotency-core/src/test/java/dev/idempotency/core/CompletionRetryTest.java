package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.InterceptingStore;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A completion whose store call fails is asked again in the background with the same owner token,
 * within the lease, while the lease is renewed and the handler's response goes out; only a lost
 * reservation or the lease's end gives up — once, without releasing the key. Faults are injected
 * in the store's {@code complete}; time is the engine's clock.
 */
class CompletionRetryTest {

    private static final String SECRET = "secret-sql-4711";

    private final MutableClock clock = new MutableClock(Instant.parse("2031-03-01T10:00:00Z"));
    private final InMemoryStore memory = new InMemoryStore();
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    private final AtomicInteger completes = new AtomicInteger();
    private final ExecutorService storeThreads = Executors.newCachedThreadPool();
    private final Logger logger = (Logger) LoggerFactory.getLogger(IdempotencyEngine.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    /** The store call the fault is injected in. */
    private volatile String faulted = "complete";
    /** What the n-th {@link #faulted} call (1-based) does before it reaches the store; it may throw. */
    private volatile CompleteFault fault = attempt -> { };

    @FunctionalInterface
    private interface CompleteFault {
        void before(int attempt) throws Exception;
    }

    @BeforeEach
    void captureLogs() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void stop() {
        logger.detachAppender(logs);
        storeThreads.shutdownNow();
    }

    private final InterceptingStore store = new InterceptingStore(memory, operation -> {
        if (operation.equals(faulted)) {
            try {
                fault.before(completes.incrementAndGet());
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    });

    private IdempotencyEngine engine(boolean async, UnaryOperator<IdempotencyConfig.Builder> settings) {
        IdempotencyConfig config = settings.apply(IdempotencyConfig.builder().clock(clock).listener(e -> outcomes
                .add(e.outcome()))).build();
        return async ? new IdempotencyEngine(AsyncStore.of(store, storeThreads), config)
                : new IdempotencyEngine(store, config);
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), "{\"sku\":1}".getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created() {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{\"order\":1}".getBytes(StandardCharsets.UTF_8));
    }

    private static StorageUnavailableException outage() {
        return new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE,
                "connection terminated: " + SECRET, null);
    }

    private static Decision.Respond respond(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        return (Decision.Respond) decision;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private Optional<IdempotencyRecord> record(Execution execution) {
        return memory.find(execution.key(), Instant.parse("2031-01-01T00:00:00Z"));
    }

    private List<String> persistFailedLines() {
        return logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(e -> e.getFormattedMessage() + ThrowableProxyUtil.asString(e.getThrowableProxy()))
                .filter(line -> line.contains("persist_failed")).collect(Collectors.toList());
    }

    /**
     * Two attempts fail; the handler's response goes out after the first; while the second is
     * held, the lease (600 ms) is renewed past its first end and a duplicate gets 409; the third
     * lands, and the duplicate replays. One handler run.
     */
    @ParameterizedTest(name = "async face: {0}")
    @ValueSource(booleans = {true, false})
    void aFailedCompletionIsRetriedWhileDuplicatesGet409(boolean async) throws Exception {
        CountDownLatch secondHeld = new CountDownLatch(1);
        CountDownLatch letSecondFail = new CountDownLatch(1);
        fault = attempt -> {
            if (attempt == 1) {
                throw outage();
            }
            if (attempt == 2) {
                secondHeld.countDown();
                letSecondFail.await(20, TimeUnit.SECONDS);
                throw outage();
            }
        };
        try (IdempotencyEngine engine = engine(async, c -> c.lease(Duration.ofMillis(600)))) {
            AtomicInteger runs = new AtomicInteger();
            Decision first = engine.before(post("order-1"));
            assertThat(first).isInstanceOf(Decision.Proceed.class);
            runs.incrementAndGet();
            Execution execution = ((Decision.Proceed) first).execution();
            Instant firstLeaseEnd = record(execution).orElseThrow().leaseUntil();
            clock.advance(Duration.ofMillis(400)); // the handler runs, its lease renewed
            await("the lease is renewed while the handler runs",
                    () -> record(execution).orElseThrow().leaseUntil().isAfter(firstLeaseEnd));

            assertThat(execution.finish(created())).as("the handler's own response goes out").isEmpty();
            assertThat(secondHeld.await(20, TimeUnit.SECONDS)).as("the failed complete is asked again").isTrue();
            clock.advance(Duration.ofMillis(250)); // past the lease the reservation first had
            Instant renewedAfter = clock.instant().plus(Duration.ofMillis(599));
            await("the lease is renewed while the completion is retried",
                    () -> record(execution).orElseThrow().leaseUntil().isAfter(renewedAfter));

            Decision duplicate = engine.before(post("order-1"));
            if (duplicate instanceof Decision.Proceed) {
                runs.incrementAndGet();
            }
            assertThat(respond(duplicate).reply().status()).as("a duplicate meanwhile").isEqualTo(409);
            assertThat(record(execution).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);

            letSecondFail.countDown();
            await("the third attempt lands", () -> outcomes.contains(Outcome.EXECUTED_STORED));

            assertThat(completes).as("complete attempts").hasValue(3);
            assertThat(record(execution).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            Decision.Respond replay = respond(engine.before(post("order-1")));
            assertThat(replay.isReplay()).isTrue();
            assertThat(new String(replay.reply().body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":1}");
            assertThat(runs).as("handler runs").hasValue(1);
            assertThat(outcomes).contains(Outcome.EXECUTED_STORED).doesNotContain(Outcome.PERSIST_FAILED);
            assertThat(persistFailedLines()).isEmpty();
        }
    }

    /** The reservation was taken over after its lease lapsed: its complete answers "not yours", asked once. */
    @Test
    void aLostReservationGivesUpAtOnce() {
        try (IdempotencyEngine engine = engine(true, c -> c.lease(Duration.ofSeconds(10)).renewLease(false))) {
            Execution crashed = ((Decision.Proceed) engine.before(post("order-3"))).execution();
            clock.advance(Duration.ofSeconds(11));
            Execution takeOver = ((Decision.Proceed) engine.before(post("order-3"))).execution();

            assertThat(crashed.finish(created())).isEmpty();

            assertThat(completes).hasValue(1);
            assertThat(outcomes.stream().filter(Outcome.PERSIST_FAILED::equals)).hasSize(1);
            assertThat(persistFailedLines()).singleElement().asString().contains("reservation was lost");
            takeOver.finish(created());
            assertThat(respond(engine.before(post("order-3"))).isReplay()).isTrue();
        }
    }

    /**
     * Every attempt fails and takes a second of the clock: with a 5 s lease the fifth attempt is
     * the last; PERSIST_FAILED is counted and logged once (no store message), nothing is
     * released, and the key frees itself when its lease ends.
     */
    @ParameterizedTest(name = "async face: {0}")
    @ValueSource(booleans = {true, false})
    void aPersistentOutageStopsAtTheLeaseAndCountsOnce(boolean async) throws Exception {
        fault = attempt -> {
            clock.advance(Duration.ofSeconds(1));
            throw outage();
        };
        try (IdempotencyEngine engine = engine(async, c -> c.lease(Duration.ofSeconds(5)).renewLease(false))) {
            Execution execution = ((Decision.Proceed) engine.before(post("order-4"))).execution();

            assertThat(execution.finish(created())).as("the client still gets the handler's response").isEmpty();
            await("the engine gives up", () -> outcomes.contains(Outcome.PERSIST_FAILED));

            assertThat(completes).as("attempts until the lease's end").hasValue(5);
            assertThat(outcomes.stream().filter(Outcome.PERSIST_FAILED::equals)).hasSize(1);
            assertThat(persistFailedLines()).singleElement().asString()
                    .contains("StorageUnavailableException").doesNotContain(SECRET).doesNotContain("order-4");
            assertThat(record(execution)).as("not released").get()
                    .extracting(IdempotencyRecord::state).isEqualTo(RecordState.IN_FLIGHT);

            fault = attempt -> { };
            clock.advance(Duration.ofMillis(1));
            Decision retry = engine.before(post("order-4"));
            assertThat(retry).as("the key freed itself at the lease's end").isInstanceOf(Decision.Proceed.class);
        }
    }

    /** The optimistic mode's insert is asked again the same way: the record lands, a retry replays. */
    @Test
    void theOptimisticInsertIsRetriedToo() throws Exception {
        faulted = "insertCompleted";
        fault = attempt -> {
            if (attempt < 3) {
                throw outage();
            }
        };
        try (IdempotencyEngine engine = engine(true, c -> c.mode(Mode.OPTIMISTIC))) {
            Execution execution = ((Decision.Proceed) engine.before(post("order-5"))).execution();

            assertThat(execution.finish(created())).isEmpty();
            await("the third attempt lands", () -> outcomes.contains(Outcome.EXECUTED_STORED));

            assertThat(completes).as("insert attempts").hasValue(3);
            assertThat(outcomes).contains(Outcome.EXECUTED_STORED).doesNotContain(Outcome.PERSIST_FAILED);
            assertThat(respond(engine.before(post("order-5"))).isReplay()).isTrue();
        }
    }

    /** Three completions fail; their retries take turns (never two at a time) and all three land. */
    @Test
    void retriesTakeTurns() throws Exception {
        AtomicInteger inRetry = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger landed = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean(true);
        fault = attempt -> {
            if (failing.get()) {
                throw outage();
            }
            mostAtOnce.accumulateAndGet(inRetry.incrementAndGet(), Math::max);
            try {
                Thread.sleep(30); // widens the window in which a second retry would overlap
            } finally {
                inRetry.decrementAndGet();
                landed.incrementAndGet();
            }
        };
        try (IdempotencyEngine engine = engine(true, c -> c)) {
            for (String key : List.of("order-6a", "order-6b", "order-6c")) {
                Execution execution = ((Decision.Proceed) engine.before(post(key))).execution();
                assertThat(execution.finish(created())).isEmpty();
            }
            failing.set(false); // every first attempt has failed: from here on, only retries
            await("all three land", () -> outcomes.stream().filter(Outcome.EXECUTED_STORED::equals).count() == 3);

            assertThat(landed).as("attempts after the outage").hasValue(3);
            assertThat(mostAtOnce).as("retries at once").hasValue(1);
            for (String key : List.of("order-6a", "order-6b", "order-6c")) {
                assertThat(respond(engine.before(post(key))).isReplay()).isTrue();
            }
        }
    }
}
