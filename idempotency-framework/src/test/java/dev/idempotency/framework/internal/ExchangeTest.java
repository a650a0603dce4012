package dev.idempotency.framework.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExchangeTest {

    private static final CapturedResponse OK = CapturedResponse.of(200, Map.of(), new byte[] {1});
    private static final CapturedResponse FAILED = CapturedResponse.of(500, Map.of(), new byte[0]);
    private static final HttpReply TWIN = new HttpReply(201, Map.of(), new byte[] {2});

    private final IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
    private final Recording execution = new Recording();

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void theFirstDecisionWinsAndLaterOnesWaitForItToReachTheEngine() {
        Exchange exchange = new Exchange(engine, execution);
        CompletableFuture<Optional<HttpReply>> finished = exchange.finish(OK);
        CompletableFuture<Optional<HttpReply>> failed = exchange.fail(new IllegalStateException());
        CompletableFuture<Optional<HttpReply>> abandoned = exchange.abandon();

        assertThat(exchange.decided()).isTrue();
        assertThat(execution.calls).containsExactly("finish 200");
        assertThat(failed).isNotDone();
        assertThat(abandoned).isNotDone();

        execution.outcome.complete(Optional.of(TWIN));
        assertThat(finished.join()).contains(TWIN);
        assertThat(failed.join()).isEmpty();
        assertThat(abandoned.join()).isEmpty();
        assertThat(execution.calls).containsExactly("finish 200");
    }

    @Test
    void onlyAFailureAnsweredWithoutA2xxReleases() {
        new Exchange(engine, execution).handled(FAILED, new IllegalStateException("thrown"));
        Recording mapped = new Recording();
        new Exchange(engine, mapped).handled(OK, new IllegalStateException("thrown"));

        assertThat(execution.calls).containsExactly("fail thrown");
        assertThat(mapped.calls).containsExactly("finish 200");
    }

    @Test
    void aRequestThatEndedUndecidedIsReleasedFinishedOrAbandoned() {
        Recording failed = new Recording();
        Recording sent = new Recording();
        Recording lost = new Recording();
        new Exchange(engine, failed).ended(new IllegalStateException("unmapped"), OK);
        new Exchange(engine, sent).ended(null, OK);
        new Exchange(engine, lost).ended(null, null);

        assertThat(failed.calls).containsExactly("fail unmapped");
        assertThat(sent.calls).containsExactly("finish 200");
        assertThat(lost.calls).containsExactly("abandon");
    }

    @Test
    void aRollbackOnlyTransactionReleasesAndReplacesOnlyAResponseThatLooksSuccessful() {
        Recording failure = new Recording();
        Optional<HttpReply> success = new Exchange(engine, execution).rolledBack(201).join();
        Optional<HttpReply> answered = new Exchange(engine, failure).rolledBack(409).join();

        assertThat(success).hasValueSatisfying(reply -> {
            assertThat(reply.status()).isEqualTo(500);
            assertThat(new String(reply.body())).contains("Transaction rolled back");
        });
        assertThat(answered).isEmpty();
        assertThat(execution.calls).containsExactly("fail the transaction was marked rollback-only");
        assertThat(failure.calls).containsExactly("fail the transaction was marked rollback-only");
    }

    @Test
    void stepsRunWhereTheAdapterSaysAndTheirFailuresEndEmpty() {
        List<String> ran = new ArrayList<>();
        Exchange offloaded = new Exchange(engine, execution, step -> {
            ran.add("worker");
            return step.get();
        });
        offloaded.abandon();
        Exchange broken = new Exchange(engine, new Recording(), step -> {
            throw new IllegalStateException("worker pool closed");
        });

        assertThat(ran).containsExactly("worker");
        assertThat(execution.calls).containsExactly("abandon");
        assertThat(broken.finish(OK).join()).isEmpty();
        assertThat(broken.fail(new IllegalStateException()).join()).isEmpty();
    }

    /** Records what the exchange told the engine; a finish completes when the test says. */
    private static final class Recording implements Execution {
        final List<String> calls = new ArrayList<>();
        final CompletableFuture<Optional<HttpReply>> outcome = new CompletableFuture<>();

        @Override
        public RecordKey key() {
            return new RecordKey("tenant", "POST", "/orders", "key-1");
        }

        @Override
        public CompletionStage<Optional<HttpReply>> finishAsync(CapturedResponse response) {
            calls.add("finish " + response.status());
            return outcome;
        }

        @Override
        public CompletionStage<Void> failAsync(Throwable cause) {
            calls.add("fail " + cause.getMessage());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> abandonAsync() {
            calls.add("abandon");
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return Optional.empty();
        }
    }
}
