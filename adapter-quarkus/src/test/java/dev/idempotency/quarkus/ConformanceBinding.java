package dev.idempotency.quarkus;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;

/**
 * Binds to each method of {@link ConformanceResource}, as {@link IdempotencyBinding} binds the
 * application's feature, the filters of the current test's feature ({@link ConformanceTarget}).
 */
@Provider
public class ConformanceBinding implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        if (resource.getResourceClass() == ConformanceResource.class) {
            BoundFilters filters = new BoundFilters(resource, ConformanceTarget::feature);
            context.register(filters.filter(), Priorities.HEADER_DECORATOR);
            context.register(filters.writer(), Priorities.ENTITY_CODER + 500);
        }
    }
}
