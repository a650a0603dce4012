package dev.idempotency.quarkus;

import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.jakartars.IdempotencyFeature;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;

/**
 * Binds the Jakarta REST filters ({@link IdempotencyFeature#bind}, through {@link BoundFilters})
 * to each resource method of a Quarkus REST application when {@code idempotency.enabled} is true,
 * with {@link OffTheEventLoop} around them: their store calls block, so for a keyed request to a
 * method Quarkus runs on the Vert.x event loop they run on worker threads.
 */
@Provider
public class IdempotencyBinding implements DynamicFeature {

    /** Inside the entity coders, as {@code IdempotencyFeature} registers its writer. */
    private static final int WRITER_PRIORITY = Priorities.ENTITY_CODER + 500;

    /** Null when the settings cannot be read: then nothing is bound, and the start fails on them. */
    private final IdempotencySettings settings;

    IdempotencyBinding(Instance<IdempotencySettings> settings) {
        IdempotencySettings read;
        try {
            read = settings.get();
        } catch (ConfigurationException invalid) {
            // Read again as the application starts (IdempotencyBeans.start), where Quarkus shows the
            // failure as one line; a failure here, in the static initialisation, gets a stack trace.
            read = null;
        }
        this.settings = read;
    }

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        if (settings == null || !settings.isEnabled() || method == null) {
            return;
        }
        BoundFilters filters = new BoundFilters(resource);
        String header = settings.getHeaderName();
        // Request filters run in ascending priority, response filters in descending.
        context.register(OffTheEventLoop.beforeTheDecision(header), Priorities.HEADER_DECORATOR - 1);
        context.register(OffTheEventLoop.beforeTheResponse(header), Priorities.HEADER_DECORATOR + 1);
        context.register(filters.filter(), Priorities.HEADER_DECORATOR);
        context.register(filters.writer(), WRITER_PRIORITY);
    }
}
