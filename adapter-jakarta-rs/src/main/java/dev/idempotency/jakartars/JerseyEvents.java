package dev.idempotency.jakartars;

import dev.idempotency.framework.internal.Exchange;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Providers;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * Jersey's request events, for what Jakarta REST has no hook for: that the runtime is about to
 * answer an exception (its own answer to an {@code AsyncResponse} timeout then abandons the key;
 * one nothing of the application's maps releases it before Jersey's 500 goes out; a mapper's
 * answer is finished like any response), and that a request ended without its response reaching
 * the engine ({@link Exchange#ended}). It also tells the writer whether Jersey committed a
 * response's status line to the container ({@link #committed}).
 */
final class JerseyEvents implements ApplicationEventListener {

    private static final String DEFAULT_MAPPER = "org.glassfish.jersey.server.DefaultExceptionMapper";

    private final RequestEventListener listener = this::onEvent;

    @Context
    private Providers providers;

    @Override
    public void onEvent(ApplicationEvent event) {
    }

    @Override
    public RequestEventListener onRequest(RequestEvent event) {
        return listener;
    }

    /**
     * Whether Jersey handed the status line to the container: until then it holds what the writer
     * wrote (up to its buffer, a flush included), and a failure is answered with the container's 500.
     */
    static boolean committed(ContainerResponseContext response) {
        return !(response instanceof ContainerResponse jersey) || jersey.isCommitted();
    }

    private void onEvent(RequestEvent event) {
        RequestEvent.Type type = event.getType();
        if (type != RequestEvent.Type.ON_EXCEPTION && type != RequestEvent.Type.FINISHED) {
            return;
        }
        Object seen = event.getContainerRequest().getProperty(IdempotencyFilter.RESPONSE);
        Exchange exchange = IdempotencyFilter.exchange(
                event.getContainerRequest().getProperty(IdempotencyFilter.EXCHANGE));
        if (exchange == null || exchange.decided()) {
            return;
        }
        if (type == RequestEvent.Type.FINISHED) {
            IdempotencyFilter.ended(exchange, seen instanceof ContainerResponseContext response ? response
                    : event.getContainerResponse(), event.getException());
        } else if (unmapped(event.getException())) {
            // Nothing of the application's answers it: released before Jersey's 500, which can go out unseen.
            exchange.fail(event.getException()).join();
        } else {
            IdempotencyFilter.raised(exchange, event.getException());
        }
    }

    /**
     * Whether nothing of the application's answers {@code exception} (Jersey reports what the
     * resource threw wrapped, in its {@code MappableException}): no {@code ExceptionMapper} of the
     * application's, and no {@code WebApplicationException}'s own response.
     */
    private boolean unmapped(Throwable exception) {
        Throwable thrown = exception != null && exception.getClass().getName().endsWith(".MappableException")
                && exception.getCause() != null ? exception.getCause() : exception;
        if (thrown == null || thrown instanceof WebApplicationException || providers == null) {
            return false;
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        ExceptionMapper<?> mapper = providers.getExceptionMapper((Class) thrown.getClass());
        return mapper == null || mapper.getClass().getName().equals(DEFAULT_MAPPER);
    }
}
