package dev.idempotency.framework;

import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.Store;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The purge an integration schedules over the application's store ({@link PurgeScheduler}), as
 * {@link PurgeSettings} say, on the engine's clock; none when they turn it off or the store expires
 * its records itself (Redis). Closing it stops the
 * schedule. An invalid setting (an interval that is not positive, a batch size below one) fails
 * the start with a message naming the key.
 */
public final class ScheduledPurge implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ScheduledPurge.class);

    private final PurgeScheduler scheduler;

    private ScheduledPurge(PurgeScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Starts purging {@code store} as {@code settings} say. */
    public static ScheduledPurge start(PurgeSettings settings, Store store, Clock clock) {
        if (!settings.isEnabled() || store.expiresRecordsItself()) {
            return new ScheduledPurge(null);
        }
        PurgeScheduler.Builder builder = PurgeScheduler.builder(store).clock(clock);
        try {
            builder.interval(settings.getInterval())
                    .initialDelay(settings.getInitialDelay())
                    .batchSize(settings.getBatchSize());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(PurgeSettings.PREFIX + ".interval must be positive, "
                    + PurgeSettings.PREFIX + ".initial-delay not negative and " + PurgeSettings.PREFIX
                    + ".batch-size at least 1; they are " + settings.getInterval() + ", "
                    + settings.getInitialDelay() + " and " + settings.getBatchSize());
        }
        log.info("Purging expired idempotency records every {}, in batches of {}", settings.getInterval(),
                settings.getBatchSize());
        return new ScheduledPurge(builder.start());
    }

    /** Whether a schedule runs. */
    public boolean isScheduled() {
        return scheduler != null;
    }

    /** One run now, on the calling thread, as the schedule does it; 0 when none is scheduled. */
    public int runOnce() {
        return scheduler == null ? 0 : scheduler.runOnce();
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.close();
        }
    }
}
