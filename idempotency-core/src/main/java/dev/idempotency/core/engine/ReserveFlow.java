package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.internal.OwnerTokens;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Reserve the key, run the handler under the reservation (its lease renewed while it runs), then
 * complete or release it. A duplicate of a request still in flight looks again every
 * {@code inFlightPollInterval} until {@code inFlightWait} is spent, then gets 409. A reservation
 * whose call failed (503, no handler ran) may still have landed: {@link LostReservations} gives
 * its key back as soon as the store answers again.
 */
final class ReserveFlow implements Flow {

    private final AsyncStore store;
    private final Answers answers;
    private final IdempotencyConfig config;
    private final LeaseRenewals renewals;
    private final Pause pause;
    private final LostReservations lost;
    private final EngineScheduler scheduler;
    /** One completion retried at a time ({@link PersistRetries}). */
    private final Semaphore retryTurns = new Semaphore(1);

    ReserveFlow(AsyncStore store, Answers answers, IdempotencyConfig config, EngineScheduler scheduler,
                Pause pause, LostReservations lost) {
        this.store = store;
        this.lost = lost;
        this.scheduler = scheduler;
        this.answers = answers;
        this.config = config;
        this.renewals = new LeaseRenewals(scheduler, config.lease());
        this.pause = pause;
    }

    @Override
    public CompletionStage<Decision> decide(Admission.Admitted request) {
        CompletableFuture<Decision> decision = new CompletableFuture<>();
        new Attempts(request, config.clock().instant().plus(config.inFlightWait()), decision).run();
        return decision;
    }

    /** Runs the handler under {@code reservation}, made at {@code reservedAt}; completes it within the lease. */
    private Decision proceed(AsyncReservation reservation, Instant reservedAt, Stopwatch watch) {
        AsyncReservation held;
        Supplier<Instant> leaseEnd;
        if (config.renewLease()) {
            RenewingReservation renewing = new RenewingReservation(reservation, reservedAt, renewals, config);
            held = renewing;
            leaseEnd = renewing::leaseEnd;
        } else {
            held = reservation;
            Instant end = reservedAt.plus(config.lease());
            leaseEnd = () -> end;
        }
        PersistRetries retries = new PersistRetries(scheduler, retryTurns, config.clock(), config.lease(), leaseEnd);
        return new Decision.Proceed(new ReservedExecution(held, watch, answers, failure -> Optional.empty(), false,
                retries));
    }

    /**
     * The reservation attempts of one request. Attempts that complete at once (a blocking store, a
     * sleeping pause) loop here rather than nest, so a long wait does not grow the stack.
     */
    private final class Attempts {
        private final Admission.Admitted request;
        private final Instant deadline;
        private final CompletableFuture<Decision> decision;

        Attempts(Admission.Admitted request, Instant deadline, CompletableFuture<Decision> decision) {
            this.request = request;
            this.deadline = deadline;
            this.decision = decision;
        }

        void run() {
            while (true) {
                CompletableFuture<Duration> waitFor = lost.releaseBefore(request.key())
                        .thenCompose(released -> attempt())
                        .toCompletableFuture();
                if (!waitFor.isDone()) {
                    waitFor.whenComplete((wait, failure) -> afterAttempt(wait, failure, true));
                    return;
                }
                if (!afterAttempt(waitFor.getNow(null), failureOf(waitFor), false)) {
                    return;
                }
            }
        }

        /**
         * One reservation under a token chosen here, so that when the call fails — its outcome
         * unknown: the record may have landed — the engine can still release it as its owner.
         */
        private CompletionStage<Duration> attempt() {
            Instant now = config.clock().instant();
            String token = OwnerTokens.next();
            return Stages.attempt(() -> store.reserve(request.key(), request.fingerprint(), token, now,
                            config.lease(), config.ttl()))
                    .whenComplete((result, failure) -> {
                        if (failure != null) {
                            lost.remember(request.key(), token, now.plus(config.lease()));
                        }
                    })
                    .thenApply(result -> judge(result, now));
        }

        /** The decision, or (when the duplicate may wait for the request in flight) how long to wait. */
        private Duration judge(AsyncReserveResult result, Instant now) {
            if (result instanceof AsyncReserveResult.Acquired acquired) {
                decision.complete(proceed(acquired.reservation(), now, request.watch()));
                return null;
            }
            IdempotencyRecord record = ((AsyncReserveResult.Existing) result).record();
            if (Answers.isWorthWaitingFor(record, request.fingerprint()) && now.isBefore(deadline)) {
                return min(config.inFlightPollInterval(), Duration.between(now, deadline));
            }
            decision.complete(answers.existing(request.key(), request.fingerprint(), record, request.watch()));
            return null;
        }

        /** @return whether the caller's loop should attempt again at once */
        private boolean afterAttempt(Duration wait, Throwable failure, boolean resumed) {
            if (failure != null) {
                decision.completeExceptionally(failure);
                return false;
            }
            if (wait == null) {
                return false;
            }
            CompletableFuture<Boolean> waited = pause.after(wait).toCompletableFuture();
            if (waited.isDone() && !resumed) {
                return goOn(waited.join());
            }
            waited.whenComplete((elapsed, interrupted) -> {
                if (goOn(interrupted == null && elapsed)) {
                    run();
                }
            });
            return false;
        }

        /** After a wait: attempt again, or (cut short) answer with what is there now. */
        private boolean goOn(boolean elapsed) {
            if (elapsed) {
                return true;
            }
            decision.complete(answers.reject(request.key(), ProblemCode.IDEMPOTENCY_REQUEST_IN_PROGRESS, null, request.watch()));
            return false;
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Throwable failureOf(CompletableFuture<?> done) {
        try {
            done.join();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }
}
