package dev.idempotency.jakartars;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.framework.internal.Exchange;
import dev.idempotency.framework.internal.ScheduledPurge;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.WriterInterceptor;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Idempotency-Key handling for Jakarta REST: register it once and the resources stay as they are.
 *
 * <pre>{@code
 * IdempotencyFeature idempotency = IdempotencyFeature.builder(engine).store(store).build();
 * ResourceConfig app = new ResourceConfig(OrderResource.class).register(idempotency);
 * }</pre>
 *
 * <p>It binds a request filter, a response filter and a writer interceptor to each resource method
 * it covers: every method of every resource ({@link Builder#paths} narrows that down to request paths,
 * {@link Builder#annotatedOnly} to {@link Idempotent} resources), requests whose HTTP method the
 * engine covers. A method annotated {@link Idempotent} is covered whatever its path and HTTP method,
 * with its own {@code keyRequired} and {@code ttl}; an engine for those settings is made over the
 * same store, so they need {@link Builder#store}. The filters run at {@link Priorities#HEADER_DECORATOR}:
 * after authentication, so the caller is {@code SecurityContext.getUserPrincipal()}. The interceptor
 * runs inside any entity coder (such as gzip, {@link Priorities#ENTITY_CODER}): it stores the bytes
 * the writer wrote, and a replay is encoded for the request it answers.
 *
 * <p>What the client saw decides: a response an exception mapper made is finished like any other
 * (a 2xx is stored, a {@code WebApplicationException} carrying 201 included); the runtime's own 503
 * for an {@code AsyncResponse} timeout keeps the key in flight until its lease ends, as the resource
 * may still run. A request that ends without its response reaching the filters (the client went away)
 * also keeps it in flight; only an exception nothing mapped releases it. On Jersey the feature learns
 * of exceptions and of a request's end from Jersey's request events; another runtime reports them
 * through {@link #exceptionRaised} and {@link #requestEnded}.
 *
 * <p>{@link Builder#purge} schedules the deletion of the store's expired records, from {@code build()}
 * until {@code close()}. A health route is {@link IdempotencyHealthResource}.
 *
 * <p>{@link #close()} stops the purge and closes the engines it made (not the one it was given).
 */
public final class IdempotencyFeature implements Feature, AutoCloseable {

    /** Inside the entity coders ({@link Priorities#ENTITY_CODER}), before the application's interceptors. */
    private static final int WRITER_PRIORITY = Priorities.ENTITY_CODER + 500;

    /** The configuration property under which the feature leaves its engine, for {@link IdempotencyHealthResource}. */
    static final String ENGINE = "dev.idempotency.jakartars.engine";

    private static final String JERSEY_EVENTS = "org.glassfish.jersey.server.monitoring.ApplicationEventListener";

    private final IdempotencyEngine engine;
    private final Store store;
    private final PathPatterns paths;
    private final boolean annotatedOnly;
    private final ScheduledPurge purge;
    private final Map<Settings, IdempotencyEngine> engines = new ConcurrentHashMap<>();
    /** Whether a response's status line went out; where the runtime does not say, once bytes passed on. */
    private volatile Predicate<ContainerResponseContext> statusSent = response -> true;

    private IdempotencyFeature(Builder builder) {
        this.engine = builder.engine;
        this.store = builder.store;
        this.annotatedOnly = builder.annotatedOnly;
        this.paths = builder.paths.isEmpty() ? null : new PathPatterns(builder.paths);
        this.purge = builder.purge == null ? null
                : ScheduledPurge.start(builder.purge, builder.store, engine.config().clock());
    }

    /** A feature over {@code engine}, covering every resource until {@link Builder} says otherwise. */
    public static Builder builder(IdempotencyEngine engine) {
        return new Builder(engine);
    }

    /** {@code builder(engine).build()}: every resource, no per-resource settings. */
    public static IdempotencyFeature of(IdempotencyEngine engine) {
        return builder(engine).build();
    }

    @Override
    public boolean configure(FeatureContext context) {
        context.register(new Binding());
        context.property(ENGINE, engine);
        if (jersey(context)) {
            context.register(new JerseyEvents());
            statusSent = JerseyEvents::committed;
        }
        return true;
    }

    /** Whether the runtime configuring the feature is Jersey, with its request events at hand. */
    private static boolean jersey(FeatureContext context) {
        if (!context.getConfiguration().getClass().getName().startsWith("org.glassfish.jersey.")) {
            return false;
        }
        try {
            Class.forName(JERSEY_EVENTS, false, IdempotencyFeature.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    @Override
    public void close() {
        if (purge != null) {
            purge.close();
        }
        engines.values().forEach(IdempotencyEngine::close);
        engines.clear();
    }

    /** Binds the filter to each resource method covered. */
    private final class Binding implements DynamicFeature {
        @Override
        public void configure(ResourceInfo resource, FeatureContext context) {
            bind(resource, context);
        }
    }

    /**
     * Binds the filters to {@code resource}'s method when the feature covers it, as the feature's
     * own {@link DynamicFeature} does. For a runtime whose {@link Feature} cannot register a
     * {@code DynamicFeature} (Quarkus REST): the application's {@code DynamicFeature} calls this.
     */
    public void bind(ResourceInfo resource, FeatureContext context) {
        providers(resource).ifPresent(providers -> {
            // register(Object, int) per provider: the one registration with priorities every runtime takes
            context.register(providers.filters(), Priorities.HEADER_DECORATOR);
            context.register(providers.writer(), WRITER_PRIORITY);
        });
    }

    /**
     * What {@link #bind} registers for {@code resource}'s method, empty when the feature does not
     * cover it: for a runtime that hands requests on to them itself (Quarkus REST, whose providers are
     * registered before the engine exists).
     */
    public Optional<Providers> providers(ResourceInfo resource) {
        return providers(resource, (status, headers) -> { });
    }

    /** {@link #providers(ResourceInfo)} for a runtime that has taken the head from the writer chain ({@link Head}). */
    public Optional<Providers> providers(ResourceInfo resource, Head head) {
        return filterFor(resource)
                .map(filter -> new Providers(filter, new IdempotencyWriter(filter.engine(), statusSent, head)));
    }

    /**
     * The status and headers that replace a response's, for a runtime that took them from the writer
     * chain before its body is written (Quarkus REST), where setting them on the Jakarta REST
     * contexts comes too late.
     */
    @FunctionalInterface
    public interface Head {
        void replaced(int status, Map<String, List<String>> headers);
    }

    /**
     * The providers bound to one resource method.
     *
     * @param filters the request and response filter, at {@link Priorities#HEADER_DECORATOR}
     * @param writer  the writer interceptor, inside the entity coders
     */
    public record Providers(Filters filters, WriterInterceptor writer) {
    }

    /** A request filter that is also the response filter. */
    public interface Filters extends ContainerRequestFilter, ContainerResponseFilter {
    }

    /**
     * Tells the filters that {@code request} ended, for a runtime with a completion callback
     * (Quarkus REST's {@code CompletionCallback}): after an exception nothing mapped ({@code failure})
     * the key is released; a request whose response never reached the filters (the client went away
     * and the runtime dropped the response or cancelled the resource) leaves the key in flight until
     * its lease ends; one whose response went out unseen by the writer counts as sent. Nothing
     * happens to a request already finished.
     */
    public static void requestEnded(ContainerRequestContext request, Throwable failure) {
        Exchange exchange = IdempotencyFilter.exchange(request.getProperty(IdempotencyFilter.EXCHANGE));
        if (exchange != null) {
            IdempotencyFilter.ended(exchange, request.getProperty(IdempotencyFilter.RESPONSE)
                    instanceof ContainerResponseContext seen ? seen : null, failure);
        }
    }

    /**
     * Tells the filters that the runtime answers {@code request} for {@code exception}, before its
     * response filters run, for a runtime without Jersey's request events: its own answer to an
     * {@code AsyncResponse} timeout keeps the key in flight; any other answer is finished as usual.
     */
    public static void exceptionRaised(ContainerRequestContext request, Throwable exception) {
        Exchange exchange = IdempotencyFilter.exchange(request.getProperty(IdempotencyFilter.EXCHANGE));
        if (exchange != null && exception != null) {
            IdempotencyFilter.raised(exchange, exception);
        }
    }

    /**
     * Whether the filters let {@code request} through holding its key in flight, and have not
     * finished it yet.
     */
    public static boolean holdsKey(ContainerRequestContext request) {
        Exchange exchange = IdempotencyFilter.exchange(request.getProperty(IdempotencyFilter.EXCHANGE));
        return exchange != null && !exchange.decided();
    }

    /**
     * The request path as the client sent it ({@code ;parameters} and escapes as they came), for a
     * runtime whose {@code UriInfo} no longer holds it (Quarkus REST drops {@code ;parameters} from the
     * request URI); call it before the filters run.
     */
    public static void requestPath(ContainerRequestContext request, String rawPath) {
        request.setProperty(JakartaRequestView.RAW_PATH, rawPath);
    }

    private Optional<IdempotencyFilter> filterFor(ResourceInfo resource) {
        Method method = resource.getResourceMethod();
        if (method == null) {
            return Optional.empty();
        }
        Idempotent annotation = method.getAnnotation(Idempotent.class);
        if (annotation == null && resource.getResourceClass() != null) {
            annotation = resource.getResourceClass().getAnnotation(Idempotent.class);
        }
        if (annotation != null) {
            return Optional.of(new IdempotencyFilter(engineFor(Settings.of(annotation, httpMethod(method), method)), null,
                    IdempotencyFilter.asynchronous(method)));
        }
        return annotatedOnly ? Optional.empty() : Optional.of(new IdempotencyFilter(engine, paths,
                IdempotencyFilter.asynchronous(method)));
    }

    private IdempotencyEngine engineFor(Settings settings) {
        IdempotencyConfig base = engine.config();
        if (settings.sameAs(base)) {
            return engine;
        }
        if (store == null) {
            throw new IllegalStateException("@Idempotent(keyRequired, ttl) or an HTTP method the engine does not "
                    + "cover needs an engine of its own: give IdempotencyFeature the engine's store (builder.store)");
        }
        return engines.computeIfAbsent(settings, s -> new IdempotencyEngine(store, s.apply(base)));
    }

    private static String httpMethod(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (http != null) {
                return http.value();
            }
        }
        return null;
    }

    /** What an {@link Idempotent} resource sets apart from the engine. */
    private record Settings(boolean keyRequired, Duration ttl, String method) {

        static Settings of(Idempotent annotation, String httpMethod, Method resource) {
            Duration ttl = null;
            if (!annotation.ttl().isEmpty()) {
                try {
                    ttl = Duration.parse(annotation.ttl());
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException("@Idempotent(ttl = \"" + annotation.ttl() + "\") on "
                            + resource.getDeclaringClass().getName() + "." + resource.getName()
                            + " is no ISO-8601 duration (e.g. PT1H)", e);
                }
            }
            return new Settings(annotation.keyRequired(), ttl, httpMethod);
        }

        boolean sameAs(IdempotencyConfig config) {
            return (!keyRequired || config.keyRequired()) && (ttl == null || ttl.equals(config.ttl()))
                    && (method == null || config.covers(method));
        }

        IdempotencyConfig apply(IdempotencyConfig base) {
            IdempotencyConfig.Builder builder = base.toBuilder();
            if (keyRequired) {
                builder.keyRequired(true);
            }
            if (ttl != null) {
                builder.ttl(ttl);
                if (base.lease().compareTo(ttl) > 0) {
                    builder.lease(ttl);
                }
            }
            if (method != null && !base.covers(method)) {
                Set<String> methods = new LinkedHashSet<>(base.methods());
                methods.add(method);
                builder.methods(methods);
            }
            return builder.build();
        }
    }

    /** The feature's settings; the engine carries everything else. */
    public static final class Builder {
        private final IdempotencyEngine engine;
        private final List<String> paths = new ArrayList<>();
        private Store store;
        private boolean annotatedOnly;
        private PurgeSettings purge;

        private Builder(IdempotencyEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
        }

        /**
         * Ant-style patterns of the request paths covered ({@code /orders}, {@code /orders/*},
         * {@code /api/**}), matched against the path the record is filed under; every path when
         * none is given. {@link Idempotent} resources are covered whatever their path.
         */
        public Builder paths(String... patterns) {
            for (String pattern : patterns) {
                paths.add(Objects.requireNonNull(pattern, "pattern"));
            }
            return this;
        }

        /** Cover only {@link Idempotent} resources. */
        public Builder annotatedOnly() {
            this.annotatedOnly = true;
            return this;
        }

        /**
         * The engine's store, over which the engines of {@link Idempotent} resources with settings
         * of their own are made.
         */
        public Builder store(Store store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Purge the {@link #store}'s expired records on a schedule, as {@code settings} say (defaults:
         * every 5 min, first 1 min after {@code build()}, batches of 1000), on the engine's clock; none
         * over a store that expires records itself (Redis). An interval that is not positive, a
         * negative initial delay or a batch size below one fails {@code build()}.
         */
        public Builder purge(PurgeSettings settings) {
            this.purge = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** {@link #purge(PurgeSettings)} with the default settings. */
        public Builder purge() {
            return purge(new PurgeSettings());
        }

        /**
         * The feature; a purge, when asked for, starts here.
         *
         * @throws IllegalStateException when a purge is asked for without the {@link #store}
         */
        public IdempotencyFeature build() {
            if (purge != null && store == null) {
                throw new IllegalStateException("IdempotencyFeature's purge needs the engine's store: builder.store(store)");
            }
            return new IdempotencyFeature(this);
        }
    }
}
