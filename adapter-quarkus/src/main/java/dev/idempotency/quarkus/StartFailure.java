package dev.idempotency.quarkus;

import dev.idempotency.framework.InvalidSettingsException;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Start-up failures shown the way Quarkus shows its own configuration errors: a
 * {@link ConfigurationException} without a cause, whose message Quarkus prints alone on standard
 * error (the root cause of a failed start; anything else gets "Failed to start application" and the
 * whole stack trace). The message names the key at fault, or the missing table, and the fix.
 */
final class StartFailure {

    private StartFailure() {
    }

    /** What {@code start} gives, or, for settings that cannot work, the one-line failure naming their keys. */
    static <T> T shown(Supplier<T> start) {
        try {
            return start.get();
        } catch (InvalidSettingsException e) {
            throw of(e.getMessage(), Set.copyOf(e.settings()));
        }
    }

    /** A failure whose message is all the user needs; {@code keys} are the settings that fix it. */
    static ConfigurationException of(String message, Set<String> keys) {
        return new ConfigurationException(message, keys);
    }
}
