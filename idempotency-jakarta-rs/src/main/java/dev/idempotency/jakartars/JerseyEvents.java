package dev.idempotency.jakartars;

import dev.idempotency.core.CapturedResponse;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * Jersey's request events, for what Jakarta REST has no hook for: that the resource (or a filter
 * after the engine's) threw — the key is then released, even when an exception mapper answered a
 * 2xx — and that a request ended without its response reaching the engine: after an exception
 * nothing mapped, which releases the key, or otherwise (a response the writer was not asked to
 * write), which counts as sent and is kept without its body.
 */
final class JerseyEvents implements ApplicationEventListener {

    private static final RequestEventListener LISTENER = JerseyEvents::onEvent;

    @Override
    public void onEvent(ApplicationEvent event) {
    }

    @Override
    public RequestEventListener onRequest(RequestEvent event) {
        return LISTENER;
    }

    private static void onEvent(RequestEvent event) {
        if (event.getType() != RequestEvent.Type.ON_EXCEPTION && event.getType() != RequestEvent.Type.FINISHED) {
            return;
        }
        Exchange exchange = Exchange.of(event.getContainerRequest().getProperty(Exchange.PROPERTY));
        if (exchange == null || exchange.done()) {
            return;
        }
        if (event.getType() == RequestEvent.Type.ON_EXCEPTION) {
            // Before the exception is mapped and its response sent: a retry finds the key free.
            exchange.fail(event.getException());
        } else if (event.getException() != null || event.getContainerResponse() == null) {
            exchange.fail(event.getException() != null ? event.getException() : new NotWritten());
        } else {
            // A response went out that the filter did not see written: it counts as sent.
            exchange.finish(CapturedResponse.uncaptured(event.getContainerResponse().getStatus(),
                    Replies.strings(event.getContainerResponse().getHeaders())));
        }
    }

    /** The request ended before its response was handed to the engine. */
    static final class NotWritten extends RuntimeException {
        NotWritten() {
            super("the request ended before its response was written", null, false, false);
        }
    }
}
