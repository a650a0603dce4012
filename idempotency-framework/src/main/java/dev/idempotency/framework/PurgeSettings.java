package dev.idempotency.framework;

import java.time.Duration;

/**
 * The {@code idempotency.purge.*} settings: whether, and how often, an integration deletes expired
 * records of its store (the adapter's scheduled purge). On by default.
 */
public class PurgeSettings {

    /** The configuration prefix. */
    public static final String PREFIX = IdempotencySettings.PREFIX + ".purge";

    private boolean enabled = true;
    private Duration interval = Duration.ofMinutes(5);
    private Duration initialDelay = Duration.ofMinutes(1);
    private int batchSize = 1000;

    /** Whether expired records are purged on a schedule; default true. */
    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The pause between the end of one run and the start of the next; default 5 min. */
    public Duration getInterval() {
        return interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }

    /** The pause between the start of the application and the first run; default 1 min. */
    public Duration getInitialDelay() {
        return initialDelay;
    }

    public void setInitialDelay(Duration initialDelay) {
        this.initialDelay = initialDelay;
    }

    /** At most how many records one statement deletes; a run goes on while batches come back full; default 1000. */
    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }
}
