package dev.idempotency.quarkus;

import dev.idempotency.jakartars.IdempotencyFeature;
import io.quarkus.arc.Arc;
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
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

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

        @Override
        public void filter(ContainerRequestContext request) throws IOException {
            if (filters.bound().filter instanceof ContainerRequestFilter filter) {
                if (request instanceof ResteasyReactiveContainerRequestContext quarkus) {
                    // Jakarta REST has no hook for a request that ends in an exception nothing maps:
                    // no response filter runs, and the key would stay in flight until its lease ran out.
                    quarkus.getServerRequestContext().registerCompletionCallback(
                            failure -> IdempotencyFeature.requestEnded(request, failure));
                }
                filter.filter(request);
            }
        }

        /**
         * A response an exception mapper made for an exception the resource threw releases the key
         * first (the resource did not finish, whatever the mapped status), as on Jersey.
         */
        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) throws IOException {
            if (filters.bound().filter instanceof ContainerResponseFilter filter) {
                if (request instanceof ResteasyReactiveContainerRequestContext quarkus
                        && quarkus.getServerRequestContext() instanceof AbstractResteasyReactiveContext<?, ?> context
                        && context.getThrowable() != null) {
                    IdempotencyFeature.requestEnded(request, context.getThrowable());
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
