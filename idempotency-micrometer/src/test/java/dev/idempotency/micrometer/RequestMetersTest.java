package dev.idempotency.micrometer;

import static dev.idempotency.micrometer.Requests.created;
import static dev.idempotency.micrometer.Requests.get;
import static dev.idempotency.micrometer.Requests.post;
import static dev.idempotency.micrometer.Requests.serverError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The listener's counters and timers, over a real engine and store. */
class RequestMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private IdempotencyEngine engine(IdempotencyMetrics metrics, dev.idempotency.core.store.Store store) {
        return new IdempotencyEngine(store,
                IdempotencyConfig.builder().addListener(metrics.listener()).build());
    }

    private double requests(String outcome, String problem) {
        var counter = registry.find("idempotency.requests").tags("outcome", outcome, "problem", problem).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void countsEachOutcomeAndEachProblemExactly() {
        IdempotencyMetrics metrics = IdempotencyMetrics.builder(registry).build();
        OutageStore store = new OutageStore(new InMemoryStore());
        try (IdempotencyEngine engine = engine(metrics, store)) {
            ((Decision.Proceed) engine.before(post("k-stored", "{\"a\":1}"))).execution().finish(created());
            engine.before(post("k-stored", "{\"a\":1}"));                       // replayed
            engine.before(post("k-stored", "{\"a\":1}"));                       // replayed
            engine.before(post("k-stored", "{\"a\":2}"));                       // 422
            engine.before(post("bad key with spaces", "{}"));                   // 400
            ((Decision.Proceed) engine.before(post("k-500", "{}"))).execution().finish(serverError());
            ((Decision.Proceed) engine.before(post("k-throws", "{}"))).execution().fail(new IllegalStateException());
            engine.before(get("/orders"));                                      // passed through
            store.outage(StorageUnavailableException.Reason.UNREACHABLE);
            engine.before(post("k-outage", "{}"));                              // 503
        }

        assertThat(requests("executed_stored", "none")).isEqualTo(1);
        assertThat(requests("replayed", "none")).isEqualTo(2);
        assertThat(requests("executed_not_stored", "none")).isEqualTo(1);
        assertThat(requests("execution_failed", "none")).isEqualTo(1);
        assertThat(requests("passed_through", "none")).isEqualTo(1);
        assertThat(requests("rejected", "idempotency_key_conflict")).isEqualTo(1);
        assertThat(requests("rejected", "idempotency_key_invalid")).isEqualTo(1);
        assertThat(requests("rejected", "idempotency_storage_unavailable")).isEqualTo(1);
        assertThat(registry.find("idempotency.requests").counters())
                .as("no other series").hasSize(8)
                .allSatisfy(c -> assertThat(c.getId().getTags()).extracting(t -> t.getKey())
                        .containsExactlyInAnyOrder("outcome", "problem"));
    }

    @Test
    void timesEveryDecisionAndEveryExecution() {
        IdempotencyMetrics metrics = IdempotencyMetrics.builder(registry).build();
        try (IdempotencyEngine engine = engine(metrics, new InMemoryStore())) {
            ((Decision.Proceed) engine.before(post("k1", "{}"))).execution().finish(created());
            ((Decision.Proceed) engine.before(post("k2", "{}"))).execution().finish(created());
            engine.before(post("k1", "{}"));
        }

        var decisionStored = registry.get("idempotency.decision").tags("outcome", "executed_stored").timer();
        var executionStored = registry.get("idempotency.execution").tags("outcome", "executed_stored").timer();
        assertThat(decisionStored.count()).isEqualTo(2);
        assertThat(executionStored.count()).isEqualTo(2);
        assertThat(executionStored.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
        assertThat(registry.get("idempotency.decision").tags("outcome", "replayed").timer().count()).isEqualTo(1);
        assertThat(registry.find("idempotency.execution").tags("outcome", "replayed").timer())
                .as("a replay runs nothing").isNull();
    }

    @Test
    void noPathTagUnlessAskedFor() {
        IdempotencyMetrics metrics = IdempotencyMetrics.builder(registry).build();
        try (IdempotencyEngine engine = engine(metrics, new InMemoryStore())) {
            ((Decision.Proceed) engine.before(post("/orders", "k1", "{}"))).execution().finish(created());
            ((Decision.Proceed) engine.before(post("/payments", "k1", "{}"))).execution().finish(created());
        }
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(tagKeys(meter))
                .doesNotContain("path", "tenant", "key"));
        assertThat(requests("executed_stored", "none")).isEqualTo(2);
    }

    @Test
    void thePathTagIsOptInAndCommonTagsGoEverywhere() {
        IdempotencyMetrics metrics = IdempotencyMetrics.builder(registry).pathTag(true)
                .tags(Tags.of("engine", "orders")).build();
        try (IdempotencyEngine engine = engine(metrics, new InMemoryStore())) {
            ((Decision.Proceed) engine.before(post("/orders", "k1", "{}"))).execution().finish(created());
            ((Decision.Proceed) engine.before(post("/payments", "k1", "{}"))).execution().finish(created());
            engine.before(post("/payments", "k1", "{}"));
        }
        assertThat(registry.get("idempotency.requests").tags("path", "/orders", "outcome", "executed_stored")
                .counter().count()).isEqualTo(1);
        assertThat(registry.get("idempotency.requests").tags("path", "/payments", "outcome", "replayed")
                .counter().count()).isEqualTo(1);
        assertThat(registry.get("idempotency.execution").tags("path", "/payments").timer().count()).isEqualTo(1);
        assertThat(registry.find("idempotency.store").timers()).as("store meters have no path")
                .isNotEmpty().allSatisfy(timer -> assertThat(tagKeys(timer)).doesNotContain("path"));
        assertThat(registry.getMeters()).allSatisfy(meter ->
                assertThat(meter.getId().getTag("engine")).isEqualTo("orders"));
    }

    private static java.util.List<String> tagKeys(Meter meter) {
        return meter.getId().getTags().stream().map(t -> t.getKey()).toList();
    }
}
