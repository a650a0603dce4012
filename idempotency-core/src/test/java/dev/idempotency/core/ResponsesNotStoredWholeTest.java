package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** A success the engine cannot keep whole is kept without its body: a retry is told it was applied, never run. */
class ResponsesNotStoredWholeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, List<String>> CREATED = Map.of(
            "Content-Type", List.of("application/json"), "Location", List.of("/orders/7"),
            "Set-Cookie", List.of("session=1"));

    private final InMemoryStore memory = new InMemoryStore();

    private IdempotencyEngine engine(UnaryOperator<IdempotencyConfig.Builder> customize) {
        return new IdempotencyEngine(memory, customize.apply(IdempotencyConfig.builder()).build());
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), "{}".getBytes(StandardCharsets.UTF_8));
    }

    /** Runs {@code response} as the first request's answer and returns what the retry gets. */
    private static HttpReply retryAfter(IdempotencyEngine engine, CapturedResponse response) {
        Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
        assertThat(execution.finish(response)).as("the client gets the handler's response").isEmpty();
        Decision retry = engine.before(post("k1"));
        assertThat(retry).as("the handler does not run again").isInstanceOf(Decision.Respond.class);
        return ((Decision.Respond) retry).reply();
    }

    @Test
    void aStreamedSuccessIsAppliedOnceAndItsRetryToldWhereItsResultIs() throws Exception {
        try (IdempotencyEngine engine = engine(c -> c)) {
            HttpReply reply = retryAfter(engine, CapturedResponse.uncaptured(201, CREATED));

            assertThat(reply.status()).isEqualTo(410);
            assertThat(reply.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(reply.header("Location")).isEqualTo("/orders/7");
            assertThat(reply.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(reply.header("Set-Cookie")).as("credentials are never kept").isNull();
            JsonNode problem = JSON.readTree(reply.body());
            assertThat(problem.path("code").asText()).isEqualTo("idempotency_response_not_stored");
            assertThat(problem.path("status").asInt()).isEqualTo(410);
            assertThat(problem.path("detail").asText()).contains("already applied").contains("status 201")
                    .contains("/orders/7");
        }
    }

    @Test
    void aBodyOverTheLimitIsKeptWithoutIt() {
        try (IdempotencyEngine engine = engine(c -> c.maxStoredBodyBytes(100))) {
            HttpReply reply = retryAfter(engine, CapturedResponse.of(201, CREATED, new byte[101]));

            assertThat(reply.status()).isEqualTo(410);
            StoredResponse kept = memory.find(new RecordKey("default", "POST", "/orders", "k1"), Instant.now())
                    .orElseThrow().response();
            assertThat(kept.bodyStored()).isFalse();
            assertThat(kept.status()).isEqualTo(201);
            assertThat(kept.contentType()).isEqualTo("application/json");
            assertThat(kept.headers()).containsOnlyKeys("Location");
        }
    }

    @Test
    void aBodyAtTheLimitIsStoredWholeAndReplayed() {
        try (IdempotencyEngine engine = engine(c -> c.maxStoredBodyBytes(100))) {
            HttpReply reply = retryAfter(engine, CapturedResponse.of(201, CREATED, new byte[100]));

            assertThat(reply.status()).isEqualTo(201);
            assertThat(reply.body()).hasSize(100);
        }
    }

    @Test
    void theDefaultLimitStoresAFewMebibytes() {
        assertThat(IdempotencyConfig.defaults().maxStoredBodyBytes()).isEqualTo(4 << 20);
        try (IdempotencyEngine engine = engine(c -> c)) {
            byte[] twoMegabytes = new byte[2_000_000];
            HttpReply reply = retryAfter(engine, CapturedResponse.of(201, CREATED, twoMegabytes));

            assertThat(reply.status()).isEqualTo(201);
            assertThat(reply.body()).isEqualTo(twoMegabytes);
        }
    }

    @Test
    void aFailureThatCannotBeCapturedIsReleased() {
        try (IdempotencyEngine engine = engine(c -> c)) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            execution.finish(CapturedResponse.uncaptured(503, Map.of()));

            assertThat(engine.before(post("k1"))).isInstanceOf(Decision.Proceed.class);
        }
    }

    @Test
    void theOptimisticModeKeepsItWithoutTheBodyToo() {
        try (IdempotencyEngine engine = engine(c -> c.mode(Mode.OPTIMISTIC))) {
            assertThat(retryAfter(engine, CapturedResponse.uncaptured(200, CREATED)).status()).isEqualTo(410);
        }
    }

    @Test
    void optingInToRunAgainReleasesTheKey() {
        try (IdempotencyEngine engine = engine(c -> c.runAgainWhenNotStored(true).maxStoredBodyBytes(100))) {
            for (CapturedResponse response : List.of(CapturedResponse.uncaptured(201, CREATED),
                    CapturedResponse.of(201, CREATED, new byte[101]))) {
                Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
                execution.finish(response);
                assertThat(memory.size()).as("released").isZero();
            }
            assertThat(engine.config().toBuilder().build().runAgainWhenNotStored()).isTrue();
        }
    }
}
