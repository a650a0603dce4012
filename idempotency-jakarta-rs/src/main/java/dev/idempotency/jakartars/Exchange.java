package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import jakarta.ws.rs.container.ContainerResponseContext;
import java.util.Optional;

/**
 * One request the engine let through, between the filter's three stages (and the runtime's request
 * events): the execution and the response context once the response filter saw it. The first of
 * {@link #finish}, {@link #fail}, {@link #abandon} decides.
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

    /** Nothing is stored and the key stays in flight until its lease ends: the resource may still run. */
    void abandon() {
        done = true;
        execution.abandonAsync().toCompletableFuture().join();
    }

    /**
     * The runtime is about to answer {@code exception}: its answer to an {@code AsyncResponse} timeout
     * abandons the key (the resource runs on); any other answer — a mapper's 2xx included — is
     * finished as the filters see it.
     */
    void raised(Throwable exception) {
        if (!done && AsyncTimeouts.isRuntimeTimeout(exception)) {
            abandon();
        }
    }

    /**
     * The request ended before this exchange was decided. After an exception nothing mapped, the key
     * is released; a response that went out unseen by the writer counts as sent. A request that ended
     * without its response reaching the filters — the client went away and the runtime dropped the
     * response, or cancelled the resource's {@code CompletionStage} or {@code Uni} — abandons the key:
     * the resource may have run, or still be running.
     */
    void ended(Throwable failure) {
        if (done) {
            return;
        }
        ContainerResponseContext seen = response;
        if (failure != null) {
            fail(failure);
        } else if (seen != null) {
            finish(CapturedResponse.uncaptured(seen.getStatus(), Replies.strings(seen.getHeaders())));
        } else {
            abandon();
        }
    }
}
