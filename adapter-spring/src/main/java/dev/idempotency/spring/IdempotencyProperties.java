package dev.idempotency.spring;

import dev.idempotency.framework.IdempotencySettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotency.*} settings of a Spring Boot application: the keys and defaults every
 * integration shares ({@link IdempotencySettings}), and {@code idempotency.metrics.*}.
 */
@ConfigurationProperties(IdempotencySettings.PREFIX)
public class IdempotencyProperties extends IdempotencySettings {

    /**
     * The filter's default order: just after Spring Security's filter chain
     * ({@code SecurityFilterProperties.DEFAULT_FILTER_ORDER}, -100), so authentication has run: the
     * caller, and a tenant resolver, can read its result.
     */
    public static final int DEFAULT_ORDER = -100 + 10;

    private final Metrics metrics = new Metrics();

    public IdempotencyProperties() {
        super(DEFAULT_ORDER);
    }

    /** {@code idempotency.metrics.*}: the meters, when idempotency-micrometer and a {@code MeterRegistry} bean are there. */
    public Metrics getMetrics() {
        return metrics;
    }

    /** The {@code idempotency.metrics.*} settings. */
    public static class Metrics {

        private boolean enabled = true;
        private boolean pathTag;

        /** Whether the engine's meters are bound to the application's {@code MeterRegistry}; default true. */
        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** Whether the meters carry the record's path as a tag; default false. */
        public boolean isPathTag() {
            return pathTag;
        }

        public void setPathTag(boolean pathTag) {
            this.pathTag = pathTag;
        }
    }
}
