package dev.idempotency.javalin;

import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Execution;
import dev.idempotency.core.HttpReply;
import io.javalin.http.Context;
import jakarta.servlet.ServletRequest;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The execution of one request, kept as a request attribute between the before hook, the after
 * hook and the filter. Whichever of them comes first finishes it; the others find it done, so the
 * engine hears about each execution exactly once.
 */
final class InFlight {

    static final String ATTRIBUTE = InFlight.class.getName();

    private final Execution execution;
    private final AtomicBoolean done = new AtomicBoolean();

    InFlight(Execution execution) {
        this.execution = execution;
    }

    static InFlight of(Context ctx) {
        return of(ctx.req());
    }

    static InFlight of(ServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof InFlight inFlight ? inFlight : null;
    }

    void attachTo(Context ctx) {
        ctx.attribute(ATTRIBUTE, this);
    }

    Execution execution() {
        return execution;
    }

    boolean isDone() {
        return done.get();
    }

    /** {@link Execution#finish}, unless already finished or failed. */
    Optional<HttpReply> finish(CapturedResponse response) {
        return done.compareAndSet(false, true) ? execution.finish(response) : Optional.empty();
    }

    /** {@link Execution#fail}, unless already finished or failed. */
    void fail(Throwable cause) {
        if (done.compareAndSet(false, true)) {
            execution.fail(cause);
        }
    }
}
