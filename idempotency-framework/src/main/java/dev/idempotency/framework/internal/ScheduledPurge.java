package dev.idempotency.framework.internal;

import dev.idempotency.framework.InvalidSettingsException;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The purge an integration schedules over the application's store, blocking or asynchronous ({@link PurgeScheduler}), as
 * {@link PurgeSettings} say, on the engine's clock; none when they turn it off or the store expires
 * its records itself (Redis). Closing it stops the
 * schedule. An invalid setting (an interval that is not positive, a batch size below one) fails
 * the start with a message naming the key.
 */
public final class ScheduledPurge implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ScheduledPurge.class);
    private static final boolean JDBC_PRESENT = isPresent("dev.idempotency.jdbc.JdbcStore");

    private final PurgeScheduler scheduler;

    private ScheduledPurge(PurgeScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Starts purging {@code store} as {@code settings} say. */
    public static ScheduledPurge start(PurgeSettings settings, Store store, Clock clock) {
        ScheduledPurge purge = start(settings, store.expiresRecordsItself(), () -> PurgeScheduler.builder(store), clock);
        if (purge.isScheduled() && JDBC_PRESENT && RowLevelSecurity.isOn(store)) {
            log.warn("Row-level security is on: the scheduled purge runs with no tenant set and deletes nothing "
                    + "unless the store's database role bypasses the policy (see the idempotency-jdbc README, "
                    + "Purging); or set {}.enabled=false and purge with such a role", PurgeSettings.PREFIX);
        }
        return purge;
    }

    /** Starts purging an asynchronous {@code store} as {@code settings} say; a run waits for each batch, off the event loops. */
    public static ScheduledPurge start(PurgeSettings settings, AsyncStore store, Clock clock) {
        return start(settings, store.expiresRecordsItself(), () -> PurgeScheduler.builder(store), clock);
    }

    private static ScheduledPurge start(PurgeSettings settings, boolean expiresItself,
                                        Supplier<PurgeScheduler.Builder> scheduler, Clock clock) {
        if (!settings.isEnabled() || expiresItself) {
            return new ScheduledPurge(null);
        }
        PurgeScheduler.Builder builder = scheduler.get().clock(clock);
        try {
            builder.interval(settings.getInterval())
                    .initialDelay(settings.getInitialDelay())
                    .batchSize(settings.getBatchSize());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidSettingsException(List.of(PurgeSettings.PREFIX + ".interval",
                    PurgeSettings.PREFIX + ".initial-delay", PurgeSettings.PREFIX + ".batch-size"),
                    PurgeSettings.PREFIX + ".interval must be positive, "
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

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, ScheduledPurge.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Loaded only with idempotency-jdbc on the classpath. */
    private static final class RowLevelSecurity {
        static boolean isOn(Store store) {
            return store instanceof JdbcStore jdbc && jdbc.rowLevelSecurity();
        }
    }
}
