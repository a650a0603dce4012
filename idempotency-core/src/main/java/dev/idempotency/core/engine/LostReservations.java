package dev.idempotency.core.engine;

import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.RecordKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reservations whose outcome is unknown: the store's reserve call failed (the storage went away,
 * the answer was lost), so no handler ran under them — yet the in-flight record may have landed,
 * and would answer every retry 409 until its lease lapsed. Each is kept by its key and the owner
 * token the engine chose before the call, and released if it is still that token's in-flight
 * record (never another request's, never a completed one):
 * <ul>
 *   <li>before the next reservation of the same key in this engine — a failed release fails that
 *       request too (the storage is evidently still away), so it answers 503 as fast as before;</li>
 *   <li>in the background, one release at a time, retried with a backoff ({@value #FIRST_RETRY_MS}
 *       ms doubling to {@value #LAST_RETRY_MS} ms) until the storage answers — so a retry that
 *       reaches another instance finds the key free too.</li>
 * </ul>
 * Once its lease has passed a reservation is forgotten: the key frees itself then. At most
 * {@value #MAX} are kept; beyond that a lost reservation holds its key until its lease lapses.
 */
public final class LostReservations {

    private static final int MAX = 10_000;
    private static final long FIRST_RETRY_MS = 50;
    private static final long LAST_RETRY_MS = 1_000;
    /** Releases per background sweep; a blocking store's completed stages nest, so keep it small. */
    private static final int SWEEP_BATCH = 64;

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);
    private static final CompletableFuture<Void> NOTHING = CompletableFuture.completedFuture(null);

    /** One reservation of unknown outcome: its token, and when its lease ends. */
    private record Lost(RecordKey key, String token, Instant leaseEnd) {
    }

    private final AsyncStore store;
    private final Clock clock;
    private final EngineScheduler scheduler;
    private final ConcurrentHashMap<RecordKey, List<Lost>> byKey = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    /** Set while a sweep is scheduled or running: one at a time. */
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final AtomicBoolean warnedFull = new AtomicBoolean();
    /** The pause before the next sweep; touched only by the one sweep in progress. */
    private volatile long backoffMs = FIRST_RETRY_MS;

    public LostReservations(AsyncStore store, Clock clock, EngineScheduler scheduler) {
        this.store = store;
        this.clock = clock;
        this.scheduler = scheduler;
    }

    /** Keeps a reservation whose reserve call failed, and starts releasing it in the background. */
    void remember(RecordKey key, String token, Instant leaseEnd) {
        if (size.incrementAndGet() > MAX) {
            size.decrementAndGet();
            if (warnedFull.compareAndSet(false, true)) {
                log.warn("{} reservations of unknown outcome are waiting to be released; key_preview={} and further "
                        + "ones hold their keys until their leases lapse", MAX, key.keyPreview());
            }
            return;
        }
        Lost lost = new Lost(key, token, leaseEnd);
        byKey.merge(key, List.of(lost), (held, added) -> {
            List<Lost> all = new ArrayList<>(held);
            all.addAll(added);
            return List.copyOf(all);
        });
        log.debug("Reservation of key_preview={} failed with its outcome unknown; releasing it once the storage "
                + "answers", key.keyPreview());
        sweepAfter(FIRST_RETRY_MS);
    }

    /**
     * Releases what this engine lost of {@code key}, before the key is reserved again. Completes
     * exceptionally when a release fails: the reservation would meet the same storage.
     */
    CompletionStage<Void> releaseBefore(RecordKey key) {
        List<Lost> held = byKey.get(key);
        if (held == null) {
            return NOTHING;
        }
        CompletionStage<Void> released = NOTHING;
        for (Lost lost : held) {
            released = released.thenCompose(done -> release(lost)).thenApply(done -> null);
        }
        return released;
    }

    private CompletionStage<Boolean> release(Lost lost) {
        if (!clock.instant().isBefore(lost.leaseEnd)) {
            forget(lost);
            return CompletableFuture.completedFuture(false);
        }
        return Stages.attempt(() -> store.releaseIfOwned(lost.key, lost.token)).thenApply(released -> {
            forget(lost);
            if (released) {
                log.info("Released the in-flight record of key_preview={} whose reservation's outcome was unknown "
                        + "(its handler never ran); a retry proceeds at once", lost.key.keyPreview());
            }
            return released;
        });
    }

    private void forget(Lost lost) {
        byKey.computeIfPresent(lost.key, (key, held) -> {
            if (!held.contains(lost)) {
                return held;
            }
            size.decrementAndGet();
            List<Lost> rest = held.stream().filter(other -> !other.equals(lost)).toList();
            return rest.isEmpty() ? null : rest;
        });
    }

    private void sweepAfter(long delayMs) {
        if (sweeping.compareAndSet(false, true)) {
            backoffMs = delayMs;
            try {
                scheduler.after(Duration.ofMillis(delayMs)).thenRun(() -> scheduler.renew(this::sweep));
            } catch (RejectedExecutionException closed) {
                // the engine is closed: nothing runs any more, and the leases free the keys
            }
        }
    }

    /**
     * Forgets every reservation whose lease has passed, then releases a batch of the others one
     * after another, stopping at the first failure; then schedules the next sweep.
     */
    private void sweep() {
        Instant now = clock.instant();
        List<Lost> batch = new ArrayList<>(SWEEP_BATCH);
        for (List<Lost> held : byKey.values()) {
            for (Lost lost : held) {
                if (!now.isBefore(lost.leaseEnd)) {
                    forget(lost);
                } else if (batch.size() < SWEEP_BATCH) {
                    batch.add(lost);
                }
            }
        }
        Stages.attempt(() -> releaseEach(batch.iterator())).whenComplete((allAnswered, failure) -> {
            boolean failed = failure != null || !allAnswered;
            long next = failed ? Math.min(backoffMs * 2, LAST_RETRY_MS) : FIRST_RETRY_MS;
            sweeping.set(false);
            if (byKey.isEmpty()) {
                warnedFull.set(false);
            } else {
                sweepAfter(next);
            }
        });
    }

    /** @return {@code true} when every release was answered, {@code false} at the first that failed */
    private CompletionStage<Boolean> releaseEach(Iterator<Lost> batch) {
        if (!batch.hasNext()) {
            return CompletableFuture.completedFuture(true);
        }
        return release(batch.next()).handle((released, failure) -> failure == null)
                .thenCompose(answered -> answered ? releaseEach(batch) : CompletableFuture.completedFuture(false));
    }
}
