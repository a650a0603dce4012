package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking face of a {@link Reservation}: the same handle, finished once — by
 * {@link #complete}, {@link #release} or {@link #abort} — each answering with a
 * {@link CompletionStage}. A stage completes exceptionally where the blocking method would throw;
 * a {@code complete} whose stage fails leaves the handle open to be completed again.
 */
public interface AsyncReservation {

    /** The reserved namespace and key. */
    RecordKey key();

    /** The owner token written with the reservation: only its holder may finish it. */
    String ownerToken();

    /** As {@link Reservation#complete}: {@code false} when ownership was lost and nothing was stored. */
    CompletionStage<Boolean> complete(StoredResponse response);

    /** As {@link Reservation#release}: {@code false} when ownership was already lost. */
    CompletionStage<Boolean> release();

    /** As {@link Reservation#abort}: for a plain store the same as {@link #release()}. */
    default CompletionStage<Void> abort() {
        return release().thenApply(released -> null);
    }

    /** As {@link Reservation#renew}: {@code false} when ownership was lost. */
    CompletionStage<Boolean> renew(Instant now, Duration lease);

    /** As {@link Reservation#unwrap}: something the store keeps for the handler, such as its transaction. */
    default <T> Optional<T> unwrap(Class<T> type) {
        return Optional.empty();
    }
}
