package dev.idempotency.core.engine;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** A reservation that passes every call to another; the engine's wrappers override what they add to. */
abstract class ForwardingReservation implements AsyncReservation {

    final AsyncReservation reservation;

    ForwardingReservation(AsyncReservation reservation) {
        this.reservation = reservation;
    }

    /**
     * The engine lets this reservation go unfinished: no call reaches the store, its lease will
     * lapse. Passed on to the reservation inside.
     */
    void abandon() {
        if (reservation instanceof ForwardingReservation inner) {
            inner.abandon();
        }
    }

    @Override
    public RecordKey key() {
        return reservation.key();
    }

    @Override
    public String ownerToken() {
        return reservation.ownerToken();
    }

    @Override
    public CompletionStage<Boolean> complete(StoredResponse response) {
        return reservation.complete(response);
    }

    @Override
    public CompletionStage<Boolean> release() {
        return reservation.release();
    }

    @Override
    public CompletionStage<Void> abort() {
        return reservation.abort();
    }

    @Override
    public CompletionStage<Boolean> renew(Instant now, Duration lease) {
        return reservation.renew(now, lease);
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return reservation.unwrap(type);
    }
}
