package dev.idempotency.quarkus;

import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.runtime.ExecutorRecorder;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import org.jboss.resteasy.reactive.common.core.AbstractResteasyReactiveContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

/**
 * Moves a keyed request that Quarkus REST handles on a Vert.x event loop to a worker thread, as
 * Quarkus's own handler for {@code @Blocking} methods does, where the idempotency filters make
 * store calls, which block: just before the request filter (which decides), and again just before
 * the response filter (after which the writer records the response). The resource method runs
 * where Quarkus puts it. A request without the key header, which makes no store call, is left alone.
 */
final class OffTheEventLoop {

    private OffTheEventLoop() {
    }

    /** Registered to run just before the idempotency request filter. */
    static ContainerRequestFilter beforeTheDecision(String header) {
        return request -> moveWhenKeyed(request, header);
    }

    /** Registered to run just before the idempotency response filter. */
    static ContainerResponseFilter beforeTheResponse(String header) {
        return (request, response) -> moveWhenKeyed(request, header);
    }

    private static void moveWhenKeyed(ContainerRequestContext request, String header) {
        if (request.getHeaderString(header) == null || BlockingOperationControl.isBlockingAllowed()) {
            return;
        }
        if (request instanceof ResteasyReactiveContainerRequestContext quarkus
                && quarkus.getServerRequestContext() instanceof AbstractResteasyReactiveContext<?, ?> context) {
            context.suspend();
            context.resume(ExecutorRecorder.getCurrent()); // the next handler runs there
        }
    }
}
