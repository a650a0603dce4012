package dev.idempotency.core.call;

import dev.idempotency.core.store.StorageUnavailableException;
import java.util.Objects;

/**
 * What became of an {@link IdempotentCall}: its action ran ({@link Executed}), or it did not run —
 * a repeat answered with the first result ({@link Replayed}, {@link ResultNotStored}), or refused
 * ({@link KeyReused}, {@link InFlight}, {@link StorageUnavailable}). Only {@link Executed} ran the
 * action in this call.
 *
 * @param <T> the type of the call's result
 */
public sealed interface CallOutcome<T> {

    /** The action ran now and returned {@code value}, which was stored for the repeats. */
    record Executed<T>(T value) implements CallOutcome<T> {
    }

    /** A repeat: the action did not run; {@code value} is the first execution's result, decoded. */
    record Replayed<T>(T value) implements CallOutcome<T> {
    }

    /**
     * A repeat of a call that ran, whose result was too large to store ({@code maxStoredBodyBytes}):
     * the action did not run, and the first result cannot be given.
     */
    record ResultNotStored<T>() implements CallOutcome<T> {
    }

    /** The key was first used with another input: the action did not run. */
    record KeyReused<T>() implements CallOutcome<T> {
    }

    /** A call with this key and input is still running: the action did not run; try again later. */
    record InFlight<T>() implements CallOutcome<T> {
    }

    /**
     * The storage could not be used, so the action did not run — or, in the atomic mode, it ran but its
     * transaction did not commit (then {@code failure} is {@code null}), so nothing of it was applied
     * unless the connection was lost during the commit itself. Either way, retrying with the same key
     * is safe.
     *
     * @param reason  why the storage could not serve
     * @param failure what the store failed with, or {@code null}
     */
    record StorageUnavailable<T>(StorageUnavailableException.Reason reason, Throwable failure)
            implements CallOutcome<T> {

        public StorageUnavailable {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
