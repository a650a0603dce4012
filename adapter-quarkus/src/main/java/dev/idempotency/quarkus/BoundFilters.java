package dev.idempotency.quarkus;

import dev.idempotency.jakartars.IdempotencyFeature;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.runtime.ExecutorRecorder;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jboss.resteasy.reactive.common.core.AbstractResteasyReactiveContext;
import org.jboss.resteasy.reactive.server.core.CurrentRequestManager;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerHttpResponse;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

/**
 * The filters {@link IdempotencyFeature#providers} gives one resource method, fetched at the method's
 * first request. Quarkus REST configures its providers while the application is initialised
 * statically, before data sources (and so the store and engine) may be created; the providers
 * registered then ({@link #filter()}, {@link #writer()}) hand each request on to these.
 */
final class BoundFilters {

    /** The request property saying the response filter saw the request's response. */
    private static final String RESPONSE_SEEN = BoundFilters.class.getName() + ".responseSeen";

    private final ResourceInfo resource;
    private final Supplier<IdempotencyFeature> feature;
    private volatile Bound bound;

    /** The filters of the application's {@link IdempotencyFeature} bean. */
    BoundFilters(ResourceInfo resource) {
        this(resource, () -> Arc.container().instance(IdempotencyFeature.class).get());
    }

    /** The filters of whichever feature {@code feature} gives; bound anew when it gives another. */
    BoundFilters(ResourceInfo resource, Supplier<IdempotencyFeature> feature) {
        this.resource = resource;
        this.feature = feature;
    }

    /** The request and response filter to register, at the filters' priority. */
    Object filter() {
        return new Filter();
    }

    /** The writer interceptor to register, at the writer's priority. */
    WriterInterceptor writer() {
        return new Writer();
    }

    /** The providers of the feature now given; null when it does not cover the method. */
    private IdempotencyFeature.Providers bound() {
        IdempotencyFeature now = feature.get();
        Bound current = bound;
        if (current == null || current.feature() != now) {
            current = new Bound(now, now.providers(resource, BoundFilters::replaceHead).orElse(null));
            bound = current;
        }
        return current.providers();
    }

    /**
     * Quarkus REST sets the status and headers on its own response as the writer chain ends, before
     * the filters write the body they held: a reply sent instead replaces them there.
     */
    private static void replaceHead(int status, Map<String, List<String>> headers) {
        ResteasyReactiveRequestContext context = CurrentRequestManager.get();
        if (context == null || context.serverResponse().headWritten()) {
            return;
        }
        ServerHttpResponse response = context.serverResponse();
        response.setStatusCode(status);
        List<String> names = new ArrayList<>();
        response.getAllResponseHeaders().forEach(header -> names.add(header.getKey()));
        names.forEach(response::removeResponseHeader);
        headers.forEach((name, values) -> response.setResponseHeader(name, List.<CharSequence>copyOf(values)));
    }

    private record Bound(IdempotencyFeature feature, IdempotencyFeature.Providers providers) {
    }

    private final class Filter implements ContainerRequestFilter, ContainerResponseFilter {

        /**
         * Hands the filters the path as the client sent it (Quarkus REST's {@code UriInfo} drops its
         * {@code ;parameters}), and reports the request's end to them: Jakarta REST has no hook for a
         * request that ends in an exception nothing maps (no response filter runs), nor for one whose
         * client went away. When the client goes away, Quarkus REST drops the rest of the request's
         * handlers, response filters and writer included, so the response a blocking resource still
         * makes would never be seen: for a request under a key the filters hold, the close handler
         * that does so is replaced, and the response reaches the filters, which store it. (A
         * {@code CompletionStage} or {@code Uni} resource sets its own close handler, which cancels
         * it: its key then stays in flight until its lease ends.)
         */
        @Override
        public void filter(ContainerRequestContext request) throws IOException {
            IdempotencyFeature.Providers bound = bound();
            if (bound != null) {
                ServerRequestContext server = request instanceof ResteasyReactiveContainerRequestContext quarkus
                        ? quarkus.getServerRequestContext() : null;
                if (server instanceof ResteasyReactiveRequestContext context) {
                    IdempotencyFeature.requestPath(request, context.serverRequest().getRequestPath());
                }
                if (server != null) {
                    server.registerCompletionCallback(failure -> ended(request, failure));
                }
                bound.filters().filter(request);
                if (server != null && IdempotencyFeature.holdsKey(request)) {
                    server.serverResponse().addCloseHandler(() -> { });
                    RoutingContext routing = server instanceof ResteasyReactiveRequestContext context
                            ? context.serverRequest().unwrap(RoutingContext.class) : null;
                    if (routing != null) {
                        routing.addHeadersEndHandler(ignored -> unmapped(request, (ResteasyReactiveRequestContext) server));
                    }
                }
            }
        }

        /**
         * Just before Quarkus REST sends its answer to an exception nothing mapped (no response filter
         * ran): the key is released then, before the client can retry, not after the response ended.
         * On an event loop it is left to the completion callback.
         */
        private static void unmapped(ContainerRequestContext request, ResteasyReactiveRequestContext context) {
            if (request.getProperty(RESPONSE_SEEN) == null && context.getThrowable() != null
                    && IdempotencyFeature.holdsKey(request) && BlockingOperationControl.isBlockingAllowed()) {
                IdempotencyFeature.requestEnded(request, context.getThrowable());
            }
        }

        /** Reported off the event loop, where Quarkus REST ends a cancelled request: the engine may call the store. */
        private static void ended(ContainerRequestContext request, Throwable failure) {
            if (BlockingOperationControl.isBlockingAllowed()) {
                IdempotencyFeature.requestEnded(request, failure);
            } else {
                ExecutorRecorder.getCurrent().execute(() -> IdempotencyFeature.requestEnded(request, failure));
            }
        }

        /**
         * Tells the filters which exception the runtime answered (its answer to an {@code AsyncResponse}
         * timeout keeps the key in flight); a mapper's response is then finished like any other.
         */
        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) throws IOException {
            IdempotencyFeature.Providers bound = bound();
            if (bound != null) {
                request.setProperty(RESPONSE_SEEN, Boolean.TRUE);
                if (request instanceof ResteasyReactiveContainerRequestContext quarkus
                        && quarkus.getServerRequestContext() instanceof AbstractResteasyReactiveContext<?, ?> context
                        && context.getThrowable() != null) {
                    IdempotencyFeature.exceptionRaised(request, context.getThrowable());
                }
                bound.filters().filter(request, response);
            }
        }
    }

    private final class Writer implements WriterInterceptor {
        @Override
        public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
            IdempotencyFeature.Providers bound = bound();
            if (bound == null) {
                context.proceed();
            } else {
                bound.writer().aroundWriteTo(context);
            }
        }
    }
}
