package dev.idempotency.core.engine;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reservation that keeps its own lease alive while its handler runs, and while its completion
 * is asked again after failing: every {@code lease / 3} ({@link LeaseRenewals} looks at it) it
 * renews the lease, until a complete answers, it is otherwise finished or abandoned, or its
 * ownership is lost — past the record's time to live too: the store moves the record's expiry
 * along with the lease, so a handler that still runs keeps its key (a retry gets 409, never a
 * second run). It knows when its lease ends as last confirmed.
 * Each renewal's store call runs on a thread of its own, is expected back within one renewal
 * period (it is logged when it is not), and is not started again while it still runs — so a store
 * that hangs on one key costs one thread and delays no other key's renewal.
 */
final class RenewingReservation extends ForwardingReservation {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final Clock clock;
    private final Duration lease;
    private final LeaseRenewals renewals;
    private final AtomicBoolean renewing = new AtomicBoolean();
    /** The lease's end as the reservation or the latest renewal wrote it. */
    private volatile Instant leaseEnd;
    /** Set once a complete was asked: a renewal that finds the record no longer in flight is then expected. */
    private volatile boolean completing;
    /** When the next renewal is due ({@link System#nanoTime}); read and written by {@link LeaseRenewals}. */
    long dueAtNanos;

    /** @param reservedAt the time the reservation was made with */
    RenewingReservation(AsyncReservation reservation, Instant reservedAt, LeaseRenewals renewals,
                        IdempotencyConfig config) {
        super(reservation);
        this.leaseEnd = reservedAt.plus(config.lease());
        this.clock = config.clock();
        this.lease = config.lease();
        this.renewals = renewals;
        renewals.add(this, System.nanoTime());
    }

    /** The lease's end as last confirmed by the store. */
    Instant leaseEnd() {
        return leaseEnd;
    }

    /** On the timer thread, when a renewal is due. */
    void renewOnce() {
        Instant now = clock.instant();
        if (!renewing.compareAndSet(false, true)) {
            log.warn("Lease renewal for key_preview={} has not answered for a renewal period ({} ms); the lease "
                    + "may lapse", key().keyPreview(), renewals.period().toMillis());
            return;
        }
        try {
            renewals.scheduler().renew(() -> renew(now));
        } catch (RuntimeException e) { // the engine is closing
            renewing.set(false);
        }
    }

    private void renew(Instant now) {
        Stages.attempt(() -> reservation.renew(now, lease)).whenComplete((renewed, failure) -> {
            renewing.set(false);
            if (failure != null) {
                log.warn("Lease renewal failed for key_preview={}: {}", key().keyPreview(),
                        Stages.unwrap(failure).toString());
            } else if (!renewed) {
                if (!completing) { // else a complete whose answer was lost may have landed
                    log.warn("Lease lost for key_preview={}; another request may run it again", key().keyPreview());
                }
                renewals.remove(this);
            } else if (now.plus(lease).isAfter(leaseEnd)) {
                leaseEnd = now.plus(lease);
            }
        });
    }

    /** Stops renewing: the reservation stays as it is until its lease runs out. */
    @Override
    void abandon() {
        renewals.remove(this);
        super.abandon();
    }

    /** Renewing goes on until the store answers: a complete that failed is asked again. */
    @Override
    public CompletionStage<Boolean> complete(StoredResponse response) {
        completing = true;
        return Stages.attempt(() -> super.complete(response)).whenComplete((answer, failure) -> {
            if (failure == null) {
                renewals.remove(this);
            }
        });
    }

    @Override
    public CompletionStage<Boolean> release() {
        renewals.remove(this);
        return super.release();
    }

    @Override
    public CompletionStage<Void> abort() {
        renewals.remove(this);
        return super.abort();
    }
}
