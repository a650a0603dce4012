package dev.idempotency.jakartars;

import jakarta.ws.rs.container.ContainerResponseContext;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * Jersey's request events, for what Jakarta REST has no hook for: that the runtime is about to
 * answer an exception (its own answer to an {@code AsyncResponse} timeout then abandons the key;
 * a mapper's answer is finished like any response), and that a request ended without its response
 * reaching the engine ({@link Exchange#ended}). It also tells the writer whether Jersey committed a
 * response's status line to the container ({@link #committed}).
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

    /**
     * Whether Jersey handed the status line to the container: until then it holds what the writer
     * wrote (up to its buffer, a flush included), and a failure is answered with the container's 500.
     */
    static boolean committed(ContainerResponseContext response) {
        return !(response instanceof ContainerResponse jersey) || jersey.isCommitted();
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
            exchange.raised(event.getException());
            return;
        }
        if (exchange.response == null && event.getContainerResponse() != null) {
            exchange.response = event.getContainerResponse();
        }
        exchange.ended(event.getException());
    }
}
