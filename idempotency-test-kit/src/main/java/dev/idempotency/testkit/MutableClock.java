package dev.idempotency.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock the test moves by hand, for {@code IdempotencyConfig.builder().clock(...)}: leases and
 * expiry pass when the test says so. Thread-safe; its zone is UTC.
 *
 * <p>Depends on nothing but the JDK: the core's own tests compile this file too (they cannot
 * depend on the test kit, which depends on the core).
 */
public final class MutableClock extends Clock {

    private final AtomicReference<Instant> now;

    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    /** Moves the clock forward by {@code d}. */
    public void advance(Duration d) {
        now.updateAndGet(i -> i.plus(d));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
