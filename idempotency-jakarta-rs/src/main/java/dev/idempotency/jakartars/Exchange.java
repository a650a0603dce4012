package dev.idempotency.jakartars;

import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Execution;
import dev.idempotency.core.HttpReply;
import jakarta.ws.rs.container.ContainerResponseContext;
import java.util.Optional;

/**
 * One request the engine let through, between the filter's three stages (and Jersey's request
 * events): the execution and the response context once the response filter saw it. The first of
 * {@link #finish}, {@link #fail} decides.
 */
final class Exchange {

    /** The request property holding it. */
    static final String PROPERTY = Exchange.class.getName();

    final Execution execution;
    volatile ContainerResponseContext response;
    private volatile boolean done;

    Exchange(Execution execution) {
        this.execution = execution;
    }

    static Exchange of(Object property) {
        return property instanceof Exchange exchange ? exchange : null;
    }

    boolean done() {
        return done;
    }

    Optional<HttpReply> finish(CapturedResponse captured) {
        done = true;
        return execution.finish(captured);
    }

    void fail(Throwable cause) {
        done = true;
        execution.fail(cause);
    }

    /**
     * The request ended before this exchange was decided: after an exception nothing mapped the
     * key is released; a response that went out unseen counts as sent.
     */
    void ended(Throwable failure) {
        if (done) {
            return;
        }
        ContainerResponseContext seen = response;
        if (failure != null || seen == null) {
            fail(failure != null ? failure : new JerseyEvents.NotWritten());
        } else {
            finish(CapturedResponse.uncaptured(seen.getStatus(), Replies.strings(seen.getHeaders())));
        }
    }
}
