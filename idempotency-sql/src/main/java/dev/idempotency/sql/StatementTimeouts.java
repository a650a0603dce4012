package dev.idempotency.sql;

import java.time.Duration;
import java.util.Objects;

/**
 * The statement timeout option every SQL store offers: what a builder accepts, and the milliseconds
 * a store that bounds statements on the server (the reactive stores) applies.
 */
public final class StatementTimeouts {

    private StatementTimeouts() {
    }

    /**
     * {@code statementTimeout}, zero (no bound) or positive.
     *
     * @throws IllegalArgumentException when negative
     */
    public static Duration checked(Duration statementTimeout) {
        Objects.requireNonNull(statementTimeout, "statementTimeout");
        if (statementTimeout.isNegative()) {
            throw new IllegalArgumentException("statementTimeout must not be negative, was " + statementTimeout);
        }
        return statementTimeout;
    }

    /** {@code timeout} in milliseconds, a fraction rounded up; 0 for zero. */
    public static long millisRoundedUp(Duration timeout) {
        long millis = timeout.toMillis();
        return timeout.minusMillis(millis).isZero() ? millis : millis + 1;
    }
}
