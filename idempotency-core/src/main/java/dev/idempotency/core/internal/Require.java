package dev.idempotency.core.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks the core's builders share: each returns its argument or throws {@link IllegalArgumentException}. */
public final class Require {

    private Require() {
    }

    public static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
        return d;
    }

    public static Duration notNegative(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + d);
        }
        return d;
    }

    public static int positive(int value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    public static Duration notLonger(Duration d, String name, Duration limit, String limitName) {
        if (d.compareTo(limit) > 0) {
            throw new IllegalArgumentException(name + " (" + d + ") must not be longer than " + limitName + " (" + limit + ")");
        }
        return d;
    }
}
