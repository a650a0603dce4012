package dev.idempotency.spring;

import dev.idempotency.core.adapter.Execution;
import jakarta.servlet.ServletRequest;
import java.util.Optional;

/** What a controller may ask about the idempotency of the request it serves. */
public final class IdempotentRequests {

    /** The request attribute holding the running {@link Execution} while the controller runs. */
    static final String EXECUTION = IdempotentRequests.class.getName() + ".execution";

    private IdempotentRequests() {
    }

    /**
     * The execution the current request runs under, when the filter let it through to the
     * controller under a key; empty for requests it passed through, answered, or does not cover.
     * In the atomic mode {@code execution.unwrap(...)} gives the controller the transaction to
     * write in.
     */
    public static Optional<Execution> execution(ServletRequest request) {
        return request.getAttribute(EXECUTION) instanceof Execution execution
                ? Optional.of(execution) : Optional.empty();
    }
}
