package dev.idempotency.core.internal;

/**
 * What the engine logs of a failure of code it does not own (a tenant resolver, a listener, a
 * replay policy, a defect while reading a body): each throwable's class and stack trace, never its
 * message, which may quote a key, a body or a credential.
 */
public final class WithheldMessage extends RuntimeException {

    private static final int MAX_CAUSES = 8;

    private WithheldMessage(Throwable original, Throwable cause) {
        super(original.getClass().getName() + " (message not logged)", cause, false, true);
        setStackTrace(original.getStackTrace());
    }

    /** {@code failure} and its causes, their messages withheld. */
    public static Throwable of(Throwable failure) {
        return of(failure, 0);
    }

    private static Throwable of(Throwable failure, int depth) {
        Throwable cause = failure.getCause();
        return new WithheldMessage(failure, cause == null || cause == failure || depth >= MAX_CAUSES
                ? null : of(cause, depth + 1));
    }
}
