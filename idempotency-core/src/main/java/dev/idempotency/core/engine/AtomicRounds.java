package dev.idempotency.core.engine;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.internal.OwnerTokens;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link AsyncStore.Atomic#reserve}: rounds of
 * {@link AsyncStore.Atomic#attempt}, each with a new owner token and what is
 * left of the caller's wait, until one answers.
 *
 * <p>After a lock wait ran out: a holder in flight is answered in flight (409 for the same body,
 * 422 for another). Nobody, or a completion that may not be committed: the holder ended in
 * between or is committing, so one more round runs. When that round's wait runs out too and
 * again nobody holds the key, the wait was never for the key's row — a table lock of a migration,
 * {@code LOCK TABLE}, {@code VACUUM FULL} — and the answer is {@link Reason#BUSY} (503, never
 * 409); a second completing holder is answered in flight. A rollback by the database (deadlock,
 * serialization failure) starts over. {@value #MAX_ROUNDS} rounds at most.
 */
public final class AtomicRounds {

    private static final Logger log = LoggerFactory.getLogger(AtomicRounds.class);

    /** How many transactions a reservation may take before it gives up. */
    static final int MAX_ROUNDS = 8;

    private final AsyncStore.Atomic store;
    private final RecordKey key;
    private final String fingerprint;
    private final Instant now;
    private final Duration lease;
    private final Duration ttl;
    private final Duration wait;
    private final long deadline;
    private final CompletableFuture<AsyncReserveResult> result = new CompletableFuture<>();

    private AtomicRounds(AsyncStore.Atomic store, RecordKey key, String fingerprint, Instant now,
                         Duration lease, Duration ttl, Duration wait) {
        this.store = store;
        this.key = key;
        this.fingerprint = fingerprint;
        this.now = now;
        this.lease = lease;
        this.ttl = ttl;
        this.wait = wait;
        this.deadline = System.nanoTime() + wait.toNanos();
    }

    public static CompletionStage<AsyncReserveResult> reserve(AsyncStore.Atomic store, RecordKey key,
                                                       String fingerprint, Instant now, Duration lease,
                                                       Duration ttl, Duration wait) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, was " + wait);
        }
        AtomicRounds rounds = new AtomicRounds(store, key, fingerprint, now, lease, ttl, wait);
        rounds.round(1, false);
        return rounds.result;
    }

    /** @param askedBefore an earlier round's wait ran out and found nobody, or a completing holder */
    private void round(int round, boolean askedBefore) {
        if (round > MAX_ROUNDS) {
            result.completeExceptionally(new IllegalStateException("Could not settle the atomic reservation of "
                    + "key_preview=" + key.keyPreview() + " after " + MAX_ROUNDS + " transactions"));
            return;
        }
        CompletionStage<AtomicAttempt<AsyncReservation>> attempt;
        try {
            attempt = store.attempt(key, fingerprint, OwnerTokens.next(), now, lease, ttl,
                    remaining());
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        attempt.whenComplete((outcome, failure) -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
                return;
            }
            try {
                next(outcome, round, askedBefore);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
    }

    private void next(AtomicAttempt<AsyncReservation> outcome, int round, boolean askedBefore) {
        if (outcome instanceof AtomicAttempt.Won<AsyncReservation> won) {
            result.complete(new AsyncReserveResult.Acquired(won.reservation()));
        } else if (outcome instanceof AtomicAttempt.Lost<AsyncReservation> lost) {
            result.complete(new AsyncReserveResult.Existing(lost.record()));
        } else if (outcome instanceof AtomicAttempt.RolledBack) {
            log.debug("Atomic reservation of key_preview={} was rolled back by the database (deadlock or "
                    + "serialization failure); starting over (round {})", key.keyPreview(), round);
            round(round + 1, askedBefore);
        } else {
            AtomicAttempt.TimedOut<AsyncReservation> timedOut = (AtomicAttempt.TimedOut<AsyncReservation>) outcome;
            switch (timedOut.holder()) {
                case SAME_BODY -> inFlight(fingerprint);
                case OTHER_BODY -> inFlight(AtomicAttempt.ANOTHER_BODY);
                // Still committing after a second wait: the request is still in progress (409), not busy storage.
                case COMPLETING -> {
                    if (askedBefore) {
                        inFlight(fingerprint);
                    } else {
                        askAgain(round);
                    }
                }
                case NOBODY -> {
                    if (askedBefore) {
                        result.completeExceptionally(new StorageUnavailableException(Reason.BUSY,
                                "The atomic reservation of key_preview=" + key.keyPreview()
                                        + " waited for a lock other than its row's (" + store + ")",
                                timedOut.lockTimeout()));
                    } else {
                        askAgain(round);
                    }
                }
            }
        }
    }

    private void askAgain(int round) {
        log.debug("The uncommitted holder of key_preview={} ended or was committing while this request stopped "
                + "waiting; asking once more (round {})", key.keyPreview(), round);
        round(round + 1, true);
    }

    /** The key as held by an uncommitted transaction: in flight, with the holder's fingerprint as far as known. */
    private void inFlight(String holdersFingerprint) {
        log.debug("key_preview={} is held by an uncommitted transaction ({}); taken as in flight", key.keyPreview(),
                holdersFingerprint.equals(fingerprint) ? "the same request" : "another request");
        result.complete(new AsyncReserveResult.Existing(new IdempotencyRecord(key, holdersFingerprint,
                RecordState.IN_FLIGHT, null, now.plus(ttl), now.plus(lease))));
    }

    private Duration remaining() {
        if (wait.isZero()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
