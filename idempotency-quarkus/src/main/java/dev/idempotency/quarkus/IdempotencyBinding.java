package dev.idempotency.quarkus;

import dev.idempotency.jakartars.Idempotent;
import dev.idempotency.jakartars.IdempotencyFeature;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveResourceInfo;

/**
 * Binds the Jakarta REST filters ({@link IdempotencyFeature#bind}, through {@link BoundFilters})
 * to each resource method of a Quarkus REST application when {@code idempotency.enabled} is true.
 *
 * <p>A method Quarkus runs on the Vert.x event loop (one returning {@code Uni}, {@code Multi} or
 * {@code CompletionStage}, or annotated {@code @NonBlocking}) fails the start when its HTTP method
 * is one of {@code idempotency.methods} or it is {@link Idempotent}: the filters call the store,
 * which blocks, on the thread they run on. Annotated {@code @Blocking}, it runs on a worker thread,
 * and so do the filters, its response's included. {@code idempotency.paths} is matched per request,
 * so it does not exempt a method here.
 */
@Provider
public class IdempotencyBinding implements DynamicFeature {

    /** Inside the entity coders, as {@code IdempotencyFeature} registers its writer. */
    private static final int WRITER_PRIORITY = Priorities.ENTITY_CODER + 500;

    private final IdempotencyConfiguration config;

    IdempotencyBinding(IdempotencyConfiguration config) {
        this.config = config;
    }

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        if (!config.enabled() || method == null) {
            return;
        }
        if (resource instanceof ResteasyReactiveResourceInfo info && info.isNonBlocking && covered(resource)) {
            throw new IllegalStateException(method.getDeclaringClass().getName() + "." + method.getName()
                    + " runs on the Vert.x event loop and is covered by Idempotency-Key handling, whose store calls "
                    + "block: annotate it @io.smallrye.common.annotation.Blocking (its response is then written on "
                    + "a worker thread too), or leave it out of idempotency.methods and @Idempotent");
        }
        BoundFilters filters = new BoundFilters(resource);
        context.register(filters.filter(), Priorities.HEADER_DECORATOR);
        context.register(filters.writer(), WRITER_PRIORITY);
    }

    /** Whether a request to the method can reach the engine: by its HTTP method, or {@link Idempotent}. */
    private boolean covered(ResourceInfo resource) {
        Method method = resource.getResourceMethod();
        if (method.isAnnotationPresent(Idempotent.class)
                || resource.getResourceClass() != null && resource.getResourceClass().isAnnotationPresent(Idempotent.class)) {
            return true;
        }
        Set<String> methods = config.methods().orElse(Set.of("POST")).stream()
                .map(m -> m.toUpperCase(Locale.ROOT)).collect(Collectors.toSet());
        String http = httpMethod(method);
        return http != null && methods.contains(http);
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
}
