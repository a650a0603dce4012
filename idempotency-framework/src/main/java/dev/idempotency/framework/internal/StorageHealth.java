package dev.idempotency.framework.internal;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.StorageUnavailableException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code idempotency} health component's logic, which each framework's indicator maps to its
 * own types: UP when the engine's store answers {@link IdempotencyEngine#checkStorage()}, DOWN
 * otherwise, with the {@link StorageUnavailableException.Reason} ({@code NOT_PROVISIONED},
 * {@code UNREACHABLE}, {@code BUSY}) as its {@code reason}, or {@code UNEXPECTED} for any other
 * failure, which is logged. Never the exception's text: health details may be shown to anonymous
 * callers. The check may block.
 */
public final class StorageHealth {

    /** The component's name. */
    public static final String NAME = "idempotency";

    /** The detail that carries the reason of a DOWN. */
    public static final String REASON = "reason";

    private static final Logger log = LoggerFactory.getLogger(StorageHealth.class);

    private StorageHealth() {
    }

    /** Empty when the store is up; otherwise why it is down. */
    public static Optional<String> downReason(IdempotencyEngine engine) {
        try {
            engine.checkStorage();
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(reason(e));
        }
    }

    /** Why the store is down, from the failure of {@link IdempotencyEngine#checkStorageAsync()} (unwrapped). */
    public static String reason(Throwable failure) {
        if (failure instanceof StorageUnavailableException unavailable) {
            return unavailable.reason().name();
        }
        log.warn("Idempotency storage health check failed unexpectedly ({})", failure.getClass().getName());
        return "UNEXPECTED";
    }
}
