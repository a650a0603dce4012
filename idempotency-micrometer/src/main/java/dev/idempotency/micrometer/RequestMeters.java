package dev.idempotency.micrometer;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;

/** The listener: one count per request by outcome and problem, and its decision and execution times. */
final class RequestMeters implements IdempotencyListener {

    /** The {@code problem} tag of every outcome but {@code rejected}: each name keeps one set of tag keys. */
    static final String NO_PROBLEM = "none";

    private final MeterRegistry registry;
    private final Tags common;
    private final boolean pathTag;

    RequestMeters(MeterRegistry registry, Tags common, boolean pathTag) {
        this.registry = registry;
        this.common = common;
        this.pathTag = pathTag;
    }

    @Override
    public void onEvent(IdempotencyEvent event) {
        Tags tags = common.and("outcome", event.outcome().name().toLowerCase(Locale.ROOT));
        if (pathTag) {
            tags = tags.and("path", event.path() == null ? "unknown" : event.path());
        }
        Counter.builder("idempotency.requests")
                .description("Requests the idempotency engine saw, by what it did with them")
                .tags(tags.and("problem", event.problemCode() == null ? NO_PROBLEM : event.problemCode()))
                .register(registry)
                .increment();
        if (event.decisionTime() != null) {
            Timer.builder("idempotency.decision")
                    .description("Time the engine took to decide, before the handler ran (store calls and waits included)")
                    .tags(tags)
                    .register(registry)
                    .record(event.decisionTime());
        }
        if (event.executionTime() != null) {
            Timer.builder("idempotency.execution")
                    .description("Time from the decision to proceed to the end of finishing (handler and storing)")
                    .tags(tags)
                    .register(registry)
                    .record(event.executionTime());
        }
    }
}
