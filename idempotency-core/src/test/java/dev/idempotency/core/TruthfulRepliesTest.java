package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What the engine says when it cannot know, and what it keeps of a response no table could hold. */
class TruthfulRepliesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), "{}".getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created(String contentType) {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of(contentType)),
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aContentTypeNoTableHoldsIsSentAndKeptWithoutTheBody() throws Exception {
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        String longType = "application/json; profile=\"" + "x".repeat(300) + "\"";
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().listener(e -> outcomes.add(e.outcome())).build())) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            assertThat(execution.finish(created(longType))).as("the client gets the handler's response").isEmpty();
            Decision retry = engine.before(post("k1"));
            assertThat(retry).as("never run again").isInstanceOf(Decision.Respond.class);
            HttpReply reply = ((Decision.Respond) retry).reply();
            assertThat(reply.status()).isEqualTo(410);
            assertThat(JSON.readTree(reply.body()).path("code").asText()).isEqualTo("idempotency_response_not_stored");
        }
        assertThat(outcomes).containsExactly(Outcome.EXECUTED_STORED, Outcome.REPLAYED);
    }

    @Test
    void aCommitWhoseConnectionWasLostMayHaveBeenApplied() throws Exception {
        String detail = atomicCompletionFailingWith(new StorageUnavailableException(
                StorageUnavailableException.Reason.UNREACHABLE, "I/O error on COMMIT", null));
        assertThat(detail).contains("may or may not have been applied").contains("retry with the same key");
    }

    @Test
    void aCommitRefusedByTheDatabaseWasNotApplied() throws Exception {
        String detail = atomicCompletionFailingWith(new IllegalStateException("serialization failure"));
        assertThat(detail).isEqualTo("The request could not be committed and was not applied; retry with the same key");
    }

    /** An in-memory "transactional" store whose completion (the commit) fails with {@code failure}. */
    private static Store failingCommit(RuntimeException failure) {
        return new TestStores.Transactional(new InMemoryStore(), inner -> new TestStores.ForwardingReservation(inner) {
            @Override
            protected boolean doComplete(StoredResponse response) {
                throw failure;
            }
        });
    }

    private static String atomicCompletionFailingWith(RuntimeException failure) throws Exception {
        try (IdempotencyEngine engine = new IdempotencyEngine(failingCommit(failure),
                IdempotencyConfig.builder().mode(Mode.ATOMIC).build())) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            Optional<HttpReply> reply = execution.finish(created("application/json"));
            assertThat(reply).isPresent();
            assertThat(reply.get().status()).isEqualTo(503);
            return JSON.readTree(reply.get().body()).path("detail").asText();
        }
    }
}
