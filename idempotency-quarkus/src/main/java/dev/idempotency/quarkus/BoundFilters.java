package dev.idempotency.quarkus;

import dev.idempotency.jakartars.IdempotencyFeature;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.runtime.ExecutorRecorder;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.jboss.resteasy.reactive.common.core.AbstractResteasyReactiveContext;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

/**
 * The filters {@link IdempotencyFeature#bind} gives one resource method, fetched at the method's
 * first request. Quarkus REST configures its providers while the application is initialised
 * statically, before data sources (and so the store and engine) may be created; the providers
 * registered then ({@link #filter()}, {@link #writer()}) hand each request on to these.
 */
final class BoundFilters {

    private final ResourceInfo resource;
    private final Supplier<IdempotencyFeature> feature;
    private volatile Capture bound;

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
        return new Filter(this);
    }

    /** The writer interceptor to register, at the writer's priority. */
    WriterInterceptor writer() {
        return new Writer(this);
    }

    private Capture bound() {
        IdempotencyFeature now = feature.get();
        Capture current = bound;
        if (current == null || current.feature != now) {
            synchronized (this) {
                current = bound;
                if (current == null || current.feature != now) {
                    current = new Capture(now);
                    now.bind(resource, current);
                    bound = current;
                }
            }
        }
        return current;
    }

    private static final class Filter implements ContainerRequestFilter, ContainerResponseFilter {
        private final BoundFilters filters;

        Filter(BoundFilters filters) {
            this.filters = filters;
        }

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
            if (filters.bound().filter instanceof ContainerRequestFilter filter) {
                ServerRequestContext server = request instanceof ResteasyReactiveContainerRequestContext quarkus
                        ? quarkus.getServerRequestContext() : null;
                if (server instanceof ResteasyReactiveRequestContext context) {
                    IdempotencyFeature.requestPath(request, context.serverRequest().getRequestPath());
                }
                if (server != null) {
                    server.registerCompletionCallback(failure -> ended(request, failure));
                }
                filter.filter(request);
                if (server != null && IdempotencyFeature.holdsKey(request)) {
                    server.serverResponse().addCloseHandler(() -> { });
                }
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
            if (filters.bound().filter instanceof ContainerResponseFilter filter) {
                if (request instanceof ResteasyReactiveContainerRequestContext quarkus
                        && quarkus.getServerRequestContext() instanceof AbstractResteasyReactiveContext<?, ?> context
                        && context.getThrowable() != null) {
                    IdempotencyFeature.exceptionRaised(request, context.getThrowable());
                }
                filter.filter(request, response);
            }
        }
    }

    private static final class Writer implements WriterInterceptor {
        private final BoundFilters filters;

        Writer(BoundFilters filters) {
            this.filters = filters;
        }

        @Override
        public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
            WriterInterceptor writer = filters.bound().writer;
            if (writer == null) {
                context.proceed();
            } else {
                writer.aroundWriteTo(context);
            }
        }
    }

    /** Takes the providers {@code bind} registers, with {@code register(Object, int)}, the only call it makes. */
    private static final class Capture implements FeatureContext {
        final IdempotencyFeature feature;
        Object filter;
        WriterInterceptor writer;

        Capture(IdempotencyFeature feature) {
            this.feature = feature;
        }

        @Override
        public FeatureContext register(Object component, int priority) {
            if (component instanceof WriterInterceptor interceptor) {
                writer = interceptor;
            }
            if (component instanceof ContainerRequestFilter || component instanceof ContainerResponseFilter) {
                filter = component;
            }
            return this;
        }

        @Override
        public Configuration getConfiguration() {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext property(String name, Object value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass, int priority) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass, Class<?>... contracts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass, Map<Class<?>, Integer> contracts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Object component) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Object component, Class<?>... contracts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Object component, Map<Class<?>, Integer> contracts) {
            throw new UnsupportedOperationException();
        }
    }
}
