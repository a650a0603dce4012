package dev.idempotency.core.engine;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** The atomic mode's rounds over a scripted sequence of attempts: what is answered, after how many attempts. */
class AtomicRoundsTest {

    private static final RecordKey KEY = new RecordKey("t", "POST", "/orders", "k1");
    private static final String FP = "a".repeat(64);
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final Exception LOCK_TIMEOUT = new Exception("lock timeout");

    private final AsyncReservation reservation = new AbstractAsyncReservation(KEY, "owner") {
        @Override
        protected CompletionStage<Boolean> doComplete(StoredResponse response) {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        protected CompletionStage<Boolean> doRelease() {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
            return CompletableFuture.completedFuture(true);
        }
    };

    @Test
    void aWonOrLostAttemptIsTheAnswer() {
        Scripted won = new Scripted(new AtomicAttempt.Won<>(reservation));
        assertThat(reserve(won)).isEqualTo(new AsyncReserveResult.Acquired(reservation));
        assertThat(won.attempts).isEqualTo(1);

        IdempotencyRecord committed = new IdempotencyRecord(KEY, FP, RecordState.IN_FLIGHT, null, NOW.plus(TTL),
                NOW.plus(LEASE));
        Scripted lost = new Scripted(new AtomicAttempt.Lost<>(committed));
        assertThat(reserve(lost)).isEqualTo(new AsyncReserveResult.Existing(committed));
        assertThat(lost.attempts).isEqualTo(1);
    }

    @Test
    void aHolderInFlightIsAnsweredInFlightAtOnce() {
        Scripted same = new Scripted(timedOut(Holder.SAME_BODY));
        assertThat(inFlightFingerprint(reserve(same))).isEqualTo(FP);
        assertThat(same.attempts).isEqualTo(1);

        Scripted other = new Scripted(timedOut(Holder.OTHER_BODY));
        assertThat(inFlightFingerprint(reserve(other))).isEqualTo(AtomicAttempt.ANOTHER_BODY);
        assertThat(other.attempts).isEqualTo(1);
        assertThat(AtomicAttempt.ANOTHER_BODY).as("matches no request's fingerprint").doesNotMatch("[0-9a-f]{64}");
    }

    @Test
    void aHolderGoneIsAskedOnceMore() {
        Scripted scripted = new Scripted(timedOut(Holder.NOBODY), new AtomicAttempt.Won<>(reservation));
        assertThat(reserve(scripted)).isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(scripted.attempts).isEqualTo(2);
    }

    @Test
    void nobodyAfterTwoWaitsIsBusyStorage() {
        Scripted scripted = new Scripted(timedOut(Holder.NOBODY), timedOut(Holder.NOBODY));
        assertThatThrownBy(() -> reserve(scripted)).isInstanceOf(StorageUnavailableException.class)
                .satisfies(e -> assertThat(((StorageUnavailableException) e).reason()).isEqualTo(Reason.BUSY))
                .hasCause(LOCK_TIMEOUT);
        assertThat(scripted.attempts).isEqualTo(2);

        Scripted completingThenNobody = new Scripted(timedOut(Holder.COMPLETING), timedOut(Holder.NOBODY));
        assertThatThrownBy(() -> reserve(completingThenNobody)).isInstanceOf(StorageUnavailableException.class);
        assertThat(completingThenNobody.attempts).isEqualTo(2);
    }

    @Test
    void aCompletingHolderIsAskedAgainThenAnsweredInFlight() {
        Scripted scripted = new Scripted(timedOut(Holder.COMPLETING), timedOut(Holder.COMPLETING));
        assertThat(inFlightFingerprint(reserve(scripted))).as("409, not busy: the request is in progress")
                .isEqualTo(FP);
        assertThat(scripted.attempts).isEqualTo(2);
    }

    @Test
    void aRollbackStartsOverWithoutCountingAsAWait() {
        Scripted scripted = new Scripted(timedOut(Holder.NOBODY), new AtomicAttempt.RolledBack<>(),
                timedOut(Holder.NOBODY));
        assertThatThrownBy(() -> reserve(scripted)).isInstanceOf(StorageUnavailableException.class);
        assertThat(scripted.attempts).isEqualTo(3);

        List<AtomicAttempt<AsyncReservation>> sevenThenWon = new ArrayList<>();
        for (int i = 0; i < AtomicRounds.MAX_ROUNDS - 1; i++) {
            sevenThenWon.add(new AtomicAttempt.RolledBack<>());
        }
        sevenThenWon.add(new AtomicAttempt.Won<>(reservation));
        Scripted last = new Scripted(sevenThenWon);
        assertThat(reserve(last)).isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(last.attempts).isEqualTo(8);
    }

    @Test
    void givesUpAfterEightRounds() {
        List<AtomicAttempt<AsyncReservation>> rollbacks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rollbacks.add(new AtomicAttempt.RolledBack<>());
        }
        Scripted scripted = new Scripted(rollbacks);
        assertThatThrownBy(() -> reserve(scripted)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after 8 transactions");
        assertThat(scripted.attempts).isEqualTo(8);
    }

    @Test
    void aFailedAttemptFailsTheReservationAsItIs() {
        StorageUnavailableException down = new StorageUnavailableException(Reason.UNREACHABLE, "down", null);
        Scripted failing = new Scripted() {
            @Override
            CompletionStage<AtomicAttempt<AsyncReservation>> next() {
                return CompletableFuture.failedFuture(down);
            }
        };
        assertThat(failureOf(failing)).isSameAs(down);
        assertThat(failing.attempts).isEqualTo(1);

        Scripted throwing = new Scripted() {
            @Override
            CompletionStage<AtomicAttempt<AsyncReservation>> next() {
                throw down;
            }
        };
        assertThat(failureOf(throwing)).isSameAs(down);
    }

    @Test
    void eachRoundHasItsOwnOwnerAndWhatIsLeftOfTheWait() {
        Scripted noWait = new Scripted(timedOut(Holder.NOBODY), new AtomicAttempt.Won<>(reservation));
        reserve(noWait, Duration.ZERO);
        assertThat(noWait.waits).containsExactly(Duration.ZERO, Duration.ZERO);
        assertThat(noWait.owners).doesNotHaveDuplicates().hasSize(2);

        Scripted waiting = new Scripted(timedOut(Holder.NOBODY), new AtomicAttempt.Won<>(reservation));
        reserve(waiting, Duration.ofSeconds(5));
        assertThat(waiting.waits.get(0)).isLessThanOrEqualTo(Duration.ofSeconds(5)).isPositive();
        assertThat(waiting.waits.get(1)).isLessThanOrEqualTo(waiting.waits.get(0));
    }

    @Test
    void aNegativeWaitIsRefused() {
        assertThatThrownBy(() -> reserve(new Scripted(), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static AtomicAttempt<AsyncReservation> timedOut(Holder holder) {
        return new AtomicAttempt.TimedOut<>(holder, LOCK_TIMEOUT);
    }

    private static String inFlightFingerprint(AsyncReserveResult result) {
        IdempotencyRecord record = ((AsyncReserveResult.Existing) result).record();
        assertThat(record.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(record.leaseUntil()).isEqualTo(NOW.plus(LEASE));
        return record.fingerprint();
    }

    private static AsyncReserveResult reserve(Scripted store) {
        return reserve(store, Duration.ofMillis(100));
    }

    private static AsyncReserveResult reserve(Scripted store, Duration wait) {
        try {
            return store.atomic().orElseThrow().reserve(KEY, FP, NOW, LEASE, TTL, wait).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    private static Throwable failureOf(Scripted store) {
        return store.atomic().orElseThrow().reserve(KEY, FP, NOW, LEASE, TTL, Duration.ZERO)
                .handle((result, failure) -> failure).toCompletableFuture().join();
    }

    /** Answers each attempt with the next scripted outcome; counts the attempts. */
    private static class Scripted implements AsyncStore {
        private final Deque<AtomicAttempt<AsyncReservation>> script;
        final List<Duration> waits = new ArrayList<>();
        final List<String> owners = new ArrayList<>();
        int attempts;

        @SafeVarargs
        Scripted(AtomicAttempt<AsyncReservation>... script) {
            this(Arrays.asList(script));
        }

        Scripted(List<AtomicAttempt<AsyncReservation>> script) {
            this.script = new ArrayDeque<>(script);
        }

        CompletionStage<AtomicAttempt<AsyncReservation>> next() {
            return CompletableFuture.completedFuture(script.removeFirst());
        }

        @Override
        public java.util.Optional<Atomic> atomic() {
            return java.util.Optional.of(this::attemptInTransaction);
        }

        CompletionStage<AtomicAttempt<AsyncReservation>> attemptInTransaction(
                RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease, Duration ttl,
                Duration wait) {
            attempts++;
            waits.add(wait);
            owners.add(ownerToken);
            return next();
        }

        @Override
        public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                           Instant now, Duration lease, Duration ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                        Instant now, Duration ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
            throw new UnsupportedOperationException();
        }
    }
}
