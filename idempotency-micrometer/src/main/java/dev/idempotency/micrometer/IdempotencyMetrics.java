package dev.idempotency.micrometer;

import dev.idempotency.core.IdempotencyListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;

/**
 * Micrometer meters for one {@link dev.idempotency.core.IdempotencyEngine}: its {@link #listener()}
 * counts and times what the engine did with each request, times every call it made to its store,
 * and counts the executions in flight.
 *
 * <pre>{@code
 * IdempotencyMetrics metrics = IdempotencyMetrics.builder(registry).build();
 * IdempotencyEngine engine = new IdempotencyEngine(store,
 *         IdempotencyConfig.builder().addListener(metrics.listener()).build());
 * }</pre>
 *
 * <p>Meters (see the module README for the table):
 * <ul>
 *   <li>{@code idempotency.requests} (counter; tags {@code outcome}, {@code problem})</li>
 *   <li>{@code idempotency.decision}, {@code idempotency.execution} (timers; tag {@code outcome})</li>
 *   <li>{@code idempotency.executions.active} (gauge; registered when the first reservation is won)</li>
 *   <li>{@code idempotency.store} (timer; tags {@code operation}, {@code result})</li>
 * </ul>
 * No tenant, path or key tags by default, so the number of time series stays fixed; the path is an
 * opt-in tag ({@link Builder#pathTag}). The common {@link Builder#tags} go on every meter — give
 * each engine its own (e.g. {@code engine=orders}) when several share one registry, since meters
 * with the same name and tags are shared.
 *
 * <p>Thread-safe; build one per engine.
 */
public final class IdempotencyMetrics {

    private final IdempotencyListener listener;

    private IdempotencyMetrics(Builder builder) {
        this.listener = IdempotencyListener.all(new RequestMeters(builder.registry, builder.tags, builder.pathTag),
                new StoreMeters(builder.registry, builder.tags));
    }

    /** A builder over {@code registry}: no path tag, no common tags. */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    /**
     * The listener that feeds every meter; add it with {@code IdempotencyConfig.Builder.addListener}.
     * The same instance on every call.
     */
    public IdempotencyListener listener() {
        return listener;
    }

    /** Settings for {@link IdempotencyMetrics}; each has a default, so {@code build()} may come at once. */
    public static final class Builder {
        private final MeterRegistry registry;
        private Tags tags = Tags.empty();
        private boolean pathTag;

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * Tag the request meters with the request's normalized {@code path}; default {@code false}.
         * The path is the one the record is filed under (ids included, e.g. {@code /orders/42/pay}),
         * not a route template: switch it on only where the set of paths is small and fixed.
         */
        public Builder pathTag(boolean pathTag) {
            this.pathTag = pathTag;
            return this;
        }

        /** Tags added to every meter, e.g. {@code Tags.of("engine", "orders")}; default none. */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
            return this;
        }

        public IdempotencyMetrics build() {
            return new IdempotencyMetrics(this);
        }
    }
}
