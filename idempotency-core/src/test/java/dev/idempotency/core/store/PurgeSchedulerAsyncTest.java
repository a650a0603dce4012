package dev.idempotency.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The scheduler over an asynchronous store: the same batches, logging and schedule as over a blocking one. */
class PurgeSchedulerAsyncTest {

    private static final Instant T0 = Instant.parse("2031-02-01T00:00:00Z");
    private static final Clock LATER = Clock.fixed(T0.plusSeconds(2), ZoneOffset.UTC);
    private static final StoredResponse RESPONSE = new StoredResponse(200, null, Map.of(), new byte[] {1});

    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final Logger logger = (Logger) LoggerFactory.getLogger(PurgeScheduler.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @AfterEach
    void tearDown() {
        logger.detachAppender(logs);
        executor.shutdownNow();
    }

    @Test
    void runsWorkTheBacklogOffInBatchesUpToTheCap() {
        InMemoryStore memory = new InMemoryStore();
        for (int i = 0; i < 30; i++) {
            memory.insertCompleted(new RecordKey("t", "POST", "/o", "expired-" + i), "f", RESPONSE, T0,
                    Duration.ofSeconds(1));
        }
        for (int i = 0; i < 3; i++) {
            memory.insertCompleted(new RecordKey("t", "POST", "/o", "live-" + i), "f", RESPONSE, T0, Duration.ofHours(1));
        }
        try (PurgeScheduler purge = PurgeScheduler.builder(AsyncStore.of(memory, executor)).clock(LATER)
                .batchSize(7).maxBatchesPerRun(2).initialDelay(Duration.ofHours(1)).start()) {
            assertThat(purge.runOnce()).isEqualTo(14);
            assertThat(purge.runOnce()).isEqualTo(14);
            assertThat(purge.runOnce()).isEqualTo(2);
            assertThat(purge.runOnce()).isZero();
        }
        assertThat(memory.size()).isEqualTo(3);
    }

    @Test
    void aFailedRunLogsItsTypeWithoutItsMessageAndTheNextRunTriesAgain() throws InterruptedException {
        logs.start();
        logger.addAppender(logs);
        CountDownLatch runs = new CountDownLatch(3);
        AsyncStore failing = new ScriptedPurge(() -> {
            runs.countDown();
            return CompletableFuture.failedFuture(new IllegalStateException("key sk_live_secret"));
        });
        try (PurgeScheduler purge = PurgeScheduler.builder(failing).initialDelay(Duration.ZERO)
                .interval(Duration.ofMillis(20)).start()) {
            assertThat(runs.await(5, TimeUnit.SECONDS)).isTrue();
        }
        ILoggingEvent warning = logs.list.stream().filter(e -> e.getLevel() == Level.WARN).findFirst().orElseThrow();
        assertThat(warning.getFormattedMessage()).contains("java.lang.IllegalStateException")
                .doesNotContain("sk_live_secret");
        assertThat(warning.getThrowableProxy()).isNull();
    }

    @Test
    void runsNeverOverlapEvenWhenABatchOutlastsTheInterval() throws InterruptedException {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        CountDownLatch runs = new CountDownLatch(4);
        AsyncStore slow = new ScriptedPurge(() -> {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            return CompletableFuture.supplyAsync(() -> {
                sleep(50);
                inFlight.decrementAndGet();
                runs.countDown();
                return 0;
            }, executor);
        });
        try (PurgeScheduler purge = PurgeScheduler.builder(slow).initialDelay(Duration.ZERO)
                .interval(Duration.ofMillis(1)).start()) {
            assertThat(runs.await(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(mostInFlight).hasValue(1);
    }

    @Test
    void closingStopsARunAfterItsCurrentBatchAndWaitsForIt() throws InterruptedException {
        AtomicInteger batches = new AtomicInteger();
        CountDownLatch firstBatchStarted = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        AsyncStore slow = new ScriptedPurge(() -> {
            batches.incrementAndGet();
            firstBatchStarted.countDown();
            return CompletableFuture.supplyAsync(() -> {
                sleep(300);
                finished.incrementAndGet();
                return 10; // a full batch: the run would go on
            }, executor);
        });
        PurgeScheduler purge = PurgeScheduler.builder(slow).batchSize(10).initialDelay(Duration.ZERO).start();
        assertThat(firstBatchStarted.await(5, TimeUnit.SECONDS)).isTrue();
        purge.close();
        assertThat(finished).as("close waited for the batch in progress").hasValue(1);
        Thread.sleep(400);
        assertThat(batches).as("and no batch came after it").hasValue(1);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An in-memory store whose purge answers what {@code purge} says. */
    private static final class ScriptedPurge implements AsyncStore {
        private final AsyncStore delegate = AsyncStore.onCallingThread(new InMemoryStore());
        private final Supplier<CompletionStage<Integer>> purge;

        ScriptedPurge(Supplier<CompletionStage<Integer>> purge) {
            this.purge = purge;
        }

        @Override
        public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                           Instant now, Duration lease, Duration ttl) {
            return delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
        }

        @Override
        public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
            return delegate.complete(key, ownerToken, response);
        }

        @Override
        public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            return delegate.renew(key, ownerToken, now, lease);
        }

        @Override
        public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
            return delegate.releaseIfOwned(key, ownerToken);
        }

        @Override
        public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
            return delegate.find(key, now);
        }

        @Override
        public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                        Instant now, Duration ttl) {
            return delegate.insertCompleted(key, fingerprint, response, now, ttl);
        }

        @Override
        public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
            return purge.get();
        }
    }
}
