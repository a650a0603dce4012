package dev.idempotency.examples.reliability;

import dev.idempotency.examples.ExampleSettings;
import java.util.Map;

/** Which {@code IDEMPOTENCY_MODE} values the example services accept. */
final class Modes {

    private Modes() {
    }

    /**
     * Whether the examples accept {@code IDEMPOTENCY_MODE=atomic} — asked of the same
     * {@link ExampleSettings} the child processes read their environment with.
     */
    static boolean atomicAvailable() {
        try {
            ExampleSettings.from(Map.of("IDEMPOTENCY_MODE", "atomic"));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static final String ATOMIC_MISSING = "IDEMPOTENCY_MODE=atomic is not accepted by the examples yet "
            + "(ExampleSettings refuses it): the atomic-mode proofs cannot run until it is";
}
