package dev.idempotency.core.store;

import static dev.idempotency.core.internal.Require.positive;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes expired records now and then, in bounded batches, on one daemon thread.
 *
 * <pre>{@code
 * PurgeScheduler purge = PurgeScheduler.builder(store).interval(Duration.ofMinutes(5)).start();
 * ...
 * purge.close();
 * }</pre>
 *
 * <p>Each run calls {@link Store#purgeExpired} (or {@link AsyncStore#purgeExpired}, waiting for
 * each batch) with {@code batchSize} until a batch comes back short or {@code maxBatchesPerRun}
 * batches went, so no single statement deletes more than one batch and a huge backlog is worked
 * off over several runs. Runs never overlap. Runs log at INFO how many rows went (DEBUG when
 * none); a failed run logs a WARN naming the failure's type and the next run tries again. Several
 * application instances may each run one: on PostgreSQL and MariaDB/MySQL one instance's batch
 * never waits for another's. A store that {@link Store#expiresRecordsItself() expires records
 * itself} needs none.
 *
 * <p>With the JDBC store's PostgreSQL row-level security on, give it a store whose role bypasses the policy
 * (purging crosses tenants).
 */
public final class PurgeScheduler implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PurgeScheduler.class);
    private static final int CLOSE_WAIT_SECONDS = 10;

    /** One batch: how many records expired at {@code now} went, at most {@code limit}. */
    private interface Batch {
        int purge(Instant now, int limit);
    }

    private final Batch batch;
    private final Clock clock;
    private final Duration interval;
    private final int batchSize;
    private final int maxBatchesPerRun;
    private final ScheduledExecutorService executor;
    private volatile boolean closed;

    private PurgeScheduler(Builder b) {
        this.batch = b.batch;
        this.clock = b.clock;
        this.interval = b.interval;
        this.batchSize = b.batchSize;
        this.maxBatchesPerRun = b.maxBatchesPerRun;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idempotency-purge");
            t.setDaemon(true);
            return t;
        });
        long period = interval.toMillis();
        executor.scheduleWithFixedDelay(this::runQuietly, b.initialDelay.toMillis(), period, TimeUnit.MILLISECONDS);
    }

    /** Starts configuring a scheduler for {@code store}. */
    public static Builder builder(Store store) {
        Objects.requireNonNull(store, "store");
        return new Builder(store::purgeExpired);
    }

    /** Starts configuring a scheduler for an asynchronous {@code store}; a run waits for each batch. */
    public static Builder builder(AsyncStore store) {
        Objects.requireNonNull(store, "store");
        return new Builder((now, limit) -> {
            try {
                return store.purgeExpired(now, limit).toCompletableFuture().join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        });
    }

    /**
     * One purge run on the calling thread, as the schedule does it.
     *
     * @return how many records went
     */
    public int runOnce() {
        return purge(batch, clock.instant(), batchSize, maxBatchesPerRun, () -> closed);
    }

    /**
     * Purges {@code store} of records expired at {@code now}, in batches of {@code batchSize},
     * at most {@code maxBatches} of them.
     *
     * @return how many records went
     */
    public static int purge(Store store, Instant now, int batchSize, int maxBatches) {
        return purge((Batch) store::purgeExpired, now, batchSize, maxBatches, () -> false);
    }

    private static int purge(Batch batch, Instant now, int batchSize, int maxBatches, BooleanSupplier stop) {
        long started = System.nanoTime();
        int total = 0;
        int batches = 0;
        int purged;
        do {
            purged = batch.purge(now, batchSize);
            total += purged;
            batches++;
        } while (purged == batchSize && batches < maxBatches && !stop.getAsBoolean());
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (total > 0) {
            log.info("Purged {} expired idempotency records in {} batch(es), {} ms{}", total, batches, millis,
                    purged == batchSize ? "; more remain for the next run" : "");
        } else {
            log.debug("No expired idempotency records to purge ({} ms)", millis);
        }
        return total;
    }

    private void runQuietly() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            log.warn("Purging expired idempotency records failed ({}, message not logged); trying again in {}",
                    e.getClass().getName(), interval);
        }
    }

    /**
     * Stops the schedule; a run in progress stops after its current batch, which this waits for (at
     * most {@value #CLOSE_WAIT_SECONDS} s), so that the store can be closed next.
     */
    @Override
    public void close() {
        closed = true;
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                log.warn("A purge batch still runs {} s after the purge was closed", CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Settings of a {@link PurgeScheduler}: {@code interval} 5 min, {@code initialDelay} 1 min,
     * {@code batchSize} 1000, {@code maxBatchesPerRun} 100, {@code clock} the system clock (use
     * the engine's).
     */
    public static final class Builder {
        private final Batch batch;
        private Clock clock = Clock.systemUTC();
        private Duration interval = Duration.ofMinutes(5);
        private Duration initialDelay = Duration.ofMinutes(1);
        private int batchSize = 1000;
        private int maxBatchesPerRun = 100;

        private Builder(Batch batch) {
            this.batch = batch;
        }

        /** The clock whose instant decides what has expired; give the engine's. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The pause between the end of one run and the start of the next; positive. */
        public Builder interval(Duration interval) {
            this.interval = positive(interval, "interval");
            return this;
        }

        /** The pause between {@link #start()} and the first run; zero or more. */
        public Builder initialDelay(Duration initialDelay) {
            Objects.requireNonNull(initialDelay, "initialDelay");
            if (initialDelay.isNegative()) {
                throw new IllegalArgumentException("initialDelay must not be negative, was " + initialDelay);
            }
            this.initialDelay = initialDelay;
            return this;
        }

        /** At most how many records one statement deletes; positive. */
        public Builder batchSize(int batchSize) {
            this.batchSize = positive(batchSize, "batchSize");
            return this;
        }

        /** At most how many batches one run deletes; the rest waits for the next run; positive. */
        public Builder maxBatchesPerRun(int maxBatchesPerRun) {
            this.maxBatchesPerRun = positive(maxBatchesPerRun, "maxBatchesPerRun");
            return this;
        }

        /** Starts the schedule. */
        public PurgeScheduler start() {
            return new PurgeScheduler(this);
        }
    }
}
