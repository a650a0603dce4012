package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.micrometer.IdempotencyMetrics;
import dev.idempotency.testkit.OutageStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The health indicator over real HTTP, and the meters bound to a registry bean after a real POST. */
class HealthAndMetricsTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ApplicationContext start(Object... singletons) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "micronaut.server.port", -1,
                "micronaut.server.host", "127.0.0.1",
                "endpoints.health.details-visible", "ANONYMOUS",
                "idempotency.enabled", true,
                "idempotency.paths", List.of("/widgets"),
                "test.routes", "adapter"));
        ApplicationContext context = ApplicationContext.builder().properties(properties).singletons(singletons).start();
        context.getBean(EmbeddedServer.class).start();
        return context;
    }

    private static URI base(ApplicationContext context) {
        return URI.create("http://127.0.0.1:" + context.getBean(EmbeddedServer.class).getPort());
    }

    private static HttpResponse<String> get(ApplicationContext context, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base(context).resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(ApplicationContext context, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base(context).resolve("/widgets"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"bolt\",\"count\":3}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theIndicatorIsUpWithAWorkingStore() throws Exception {
        try (ApplicationContext context = start(new InMemoryStore())) {
            HttpResponse<String> health = get(context, "/health");

            assertThat(health.statusCode()).isEqualTo(200);
            JsonNode idempotency = JSON.readTree(health.body()).path("details").path("idempotency");
            assertThat(idempotency.path("status").asText()).isEqualTo("UP");
            assertThat(context.containsBean(IdempotencyMetrics.class)).as("no registry, no metrics").isFalse();
        }
    }

    @Test
    void theIndicatorIsDownWithTheReasonAndNoExceptionText() throws Exception {
        OutageStore store = new OutageStore(new InMemoryStore());
        store.outage(StorageUnavailableException.Reason.UNREACHABLE);
        try (ApplicationContext context = start(store)) {
            HttpResponse<String> health = get(context, "/health");

            assertThat(health.statusCode()).isEqualTo(503);
            JsonNode idempotency = JSON.readTree(health.body()).path("details").path("idempotency");
            assertThat(idempotency.path("status").asText()).isEqualTo("DOWN");
            assertThat(idempotency.path("details").path("reason").asText()).isEqualTo("UNREACHABLE");
            assertThat(health.body()).doesNotContain("simulated outage");
            assertThat(get(context, "/health/readiness").statusCode()).isEqualTo(503);
        }
    }

    @Test
    void aRegistryBeanGetsTheMetersOfARealRequest() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ApplicationContext context = start(registry)) { // no Store bean: the in-memory fallback, metered too
            String key = UUID.randomUUID().toString();
            assertThat(post(context, key).statusCode()).isEqualTo(201);
            assertThat(post(context, key).headers().firstValue("Idempotent-Replayed")).hasValue("true");

            assertThat(registry.get("idempotency.requests").tags("outcome", "executed_stored", "problem", "none")
                    .counter().count()).isEqualTo(1);
            assertThat(registry.get("idempotency.requests").tags("outcome", "replayed").counter().count()).isEqualTo(1);
            assertThat(registry.get("idempotency.execution").tags("outcome", "executed_stored").timer().count())
                    .isEqualTo(1);
            assertThat(registry.get("idempotency.store").tags("operation", "reserve", "result", "success").timer()
                    .count()).isEqualTo(2);
            assertThat(registry.get("idempotency.store").tags("operation", "complete", "result", "success").timer()
                    .count()).isEqualTo(1);
            assertThat(registry.get("idempotency.executions.active").gauge().value()).isZero();
            assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTag("path")).isNull());
        }
    }
}
