package dev.idempotency.core.engine;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.internal.WithheldMessage;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservations of one engine whose leases are being renewed, looked at by one timer task
 * every quarter of a renewal period ({@code lease / 3}): a reservation is due once a period has
 * passed since it joined or was last renewed. Joining and leaving cost a set insertion and
 * removal; nothing is scheduled or cancelled per request, and a handler that ends before its first
 * renewal never costs the timer thread anything but being skipped.
 */
final class LeaseRenewals {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final EngineScheduler scheduler;
    private final Duration period;
    private final long periodNanos;
    private final Set<RenewingReservation> live = ConcurrentHashMap.newKeySet();
    private volatile boolean sweeping;

    LeaseRenewals(EngineScheduler scheduler, Duration lease) {
        this.scheduler = scheduler;
        this.period = lease.dividedBy(3);
        this.periodNanos = period.toNanos();
    }

    /** The time between two renewals of a lease. */
    Duration period() {
        return period;
    }

    EngineScheduler scheduler() {
        return scheduler;
    }

    /** Starts renewing {@code reservation}: its first renewal is due a period from {@code nowNanos}. */
    void add(RenewingReservation reservation, long nowNanos) {
        reservation.dueAtNanos = nowNanos + periodNanos;
        live.add(reservation);
        if (!sweeping) {
            startSweeping();
        }
    }

    /** Stops renewing {@code reservation}; harmless when it was not (or no longer) renewed. */
    void remove(RenewingReservation reservation) {
        live.remove(reservation);
    }

    private synchronized void startSweeping() {
        if (!sweeping) {
            scheduler.every(period.dividedBy(4), this::sweep);
            sweeping = true;
        }
    }

    /** On the timer thread: renews every reservation that is due. */
    private void sweep() {
        long now = System.nanoTime();
        for (RenewingReservation reservation : live) {
            if (now - reservation.dueAtNanos >= 0) {
                reservation.dueAtNanos = now + periodNanos;
                try {
                    reservation.renewOnce();
                } catch (RuntimeException e) { // never stop the sweep for the others
                    log.warn("Lease renewal for key_preview={} could not start", reservation.key().keyPreview(),
                            WithheldMessage.of(e));
                }
            }
        }
    }
}
