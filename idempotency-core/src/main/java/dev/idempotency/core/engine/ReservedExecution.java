package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reserve and atomic modes: the handler runs under a won reservation, completed or released
 * after it. In the reserve mode a complete that fails is asked again in the background
 * ({@link PersistRetries}) while the reservation's lease is kept, and the handler's response goes
 * out meanwhile; only a definite failure — the reservation lost, or the lease run out — gives up,
 * counted once as {@link Outcome#PERSIST_FAILED} and logged once, releasing nothing.
 */
final class ReservedExecution extends OnceExecution {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final AsyncReservation reservation;
    private final Stopwatch watch;
    private final Answers answers;
    private final Function<Throwable, Optional<HttpReply>> whenNotApplied;
    private final boolean transactional;
    private final PersistRetries retries;

    /**
     * @param whenNotApplied what the client gets when the reservation could not be finished: the
     *                       reserve mode sends the handler's response (its effects stand), the
     *                       atomic mode a 503 (the failed commit took the handler's writes with it);
     *                       given what the store call failed with, {@code null} when ownership was lost
     * @param transactional  whether the reservation holds the handler's transaction (the atomic mode)
     * @param retries        how the complete is asked again ({@link PersistRetries#once()}: never)
     */
    ReservedExecution(AsyncReservation reservation, Stopwatch watch, Answers answers,
                      Function<Throwable, Optional<HttpReply>> whenNotApplied, boolean transactional,
                      PersistRetries retries) {
        this.transactional = transactional;
        this.retries = retries;
        this.reservation = reservation;
        this.watch = watch;
        watch.decided();
        this.answers = answers;
        this.whenNotApplied = whenNotApplied;
    }

    @Override
    public RecordKey key() {
        return reservation.key();
    }

    @Override
    protected CompletionStage<Optional<HttpReply>> onFinish(CapturedResponse response) {
        Optional<StoredResponse> stored;
        try {
            stored = answers.toStored(response);
        } catch (RuntimeException e) {
            // The application's replay policy failed: as when storing fails, the key stays in flight
            // until its lease lapses (the atomic mode rolls back), and nothing is stored.
            log.warn("idempotency.persist_failed key_preview={}: the replay policy failed ({}); the response "
                    + "was not stored", key().keyPreview(), e.getClass().getName());
            answers.emit(Outcome.PERSIST_FAILED, key(), watch);
            if (!transactional) {
                letGo();
                return CompletableFuture.completedFuture(whenNotApplied.apply(e));
            }
            return Stages.attempt(reservation::abort).handle((aborted, failure) -> whenNotApplied.apply(e));
        }
        if (stored.isEmpty()) {
            answers.emit(Outcome.EXECUTED_NOT_STORED, key(), watch);
            return Stages.attempt(reservation::release).handle((released, failure) -> {
                if (failure == null) {
                    return Optional.empty();
                }
                // The lease still expires, so the key frees itself. In the atomic mode, though, the
                // release's commit carried the handler's writes: they were not applied.
                log.warn("Could not release reservation for key_preview={}: {}", key().keyPreview(),
                        Stages.unwrap(failure).toString());
                return whenNotApplied.apply(failure);
            });
        }
        CompletableFuture<Optional<HttpReply>> reply = new CompletableFuture<>();
        retries.persist(() -> reservation.complete(stored.get()),
                // The handler's response goes out now; its record is stored meanwhile, the key in flight.
                () -> reply.complete(Optional.empty())).<Optional<HttpReply>>thenApply(result -> {
            if (result.ending() == PersistRetries.Ending.STORED) {
                if (result.attempts() > 1) {
                    log.info("Response of key_preview={} stored at attempt {}", key().keyPreview(), result.attempts());
                }
                answers.emit(Outcome.EXECUTED_STORED, key(), watch);
                return Optional.empty();
            }
            if (result.ending() == PersistRetries.Ending.REFUSED) {
                log.warn("idempotency.persist_failed key_preview={}: the reservation was lost (lease expired "
                        + "and taken over){}; the response was not stored", key().keyPreview(),
                        result.attempts() > 1 ? ", or a failed attempt landed after all" : "");
            } else {
                result.logGaveUp(key());
            }
            // Nothing is released: the handler's effects stand, and the key frees itself when its
            // lease ends (the atomic mode's failed commit rolled back: its key is already free).
            if (!transactional) {
                letGo();
            }
            answers.emit(Outcome.PERSIST_FAILED, key(), watch);
            return whenNotApplied.apply(result.failure());
        }).whenComplete((replaced, failure) -> reply.complete(failure == null ? replaced : Optional.empty()));
        return reply;
    }

    @Override
    protected CompletionStage<Void> onFail(Throwable cause) {
        // The exception's type only: its message may hold what the application saw (a body, a secret).
        log.debug("Handler failed for key_preview={}; releasing: {}", key().keyPreview(),
                cause == null ? null : cause.getClass().getName());
        return Stages.attempt(reservation::abort).handle((aborted, failure) -> {
            if (failure != null) {
                // The lease still expires, so the key frees itself; nothing more to do here.
                log.warn("Could not abort reservation for key_preview={}: {}", key().keyPreview(),
                        Stages.unwrap(failure).toString());
            }
            answers.emit(Outcome.EXECUTION_FAILED, key(), watch);
            return null;
        });
    }

    @Override
    protected CompletionStage<Void> onAbandon() {
        if (transactional) {
            return onFail(null); // the transaction cannot outlive the request: it rolls back
        }
        log.debug("Response for key_preview={} abandoned while its handler may still run; the key stays in "
                + "flight until its lease ends", key().keyPreview());
        letGo();
        answers.emit(Outcome.EXECUTION_FAILED, key(), watch);
        return CompletableFuture.completedFuture(null);
    }

    /** Leaves the reservation unfinished: no more renewals, its lease lapses and frees the key. */
    private void letGo() {
        if (reservation instanceof ForwardingReservation forwarding) {
            forwarding.abandon();
        }
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return reservation.unwrap(type);
    }
}
