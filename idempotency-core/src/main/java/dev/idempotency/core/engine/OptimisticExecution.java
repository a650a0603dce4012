package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import static dev.idempotency.core.engine.Stages.attempt;

import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimistic mode: nothing reserved; insert-if-absent after the handler, asked again in the
 * background while it fails, for at most a lease ({@link PersistRetries}).
 */
final class OptimisticExecution extends OnceExecution {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final RecordKey key;
    private final String fingerprint;
    private final Stopwatch watch;
    private final AsyncStore store;
    private final Answers answers;
    private final IdempotencyConfig config;
    private final PersistRetries retries;

    OptimisticExecution(Admission.Admitted request, AsyncStore store, Answers answers, IdempotencyConfig config,
                        PersistRetries retries) {
        this.retries = retries;
        this.key = request.key();
        this.fingerprint = request.fingerprint();
        this.watch = request.watch();
        watch.decided();
        this.store = store;
        this.answers = answers;
        this.config = config;
    }

    @Override
    public RecordKey key() {
        return key;
    }

    @Override
    protected CompletionStage<Optional<HttpReply>> onFinish(CapturedResponse response) {
        Clock clock = config.clock();
        CompletionStage<Optional<HttpReply>> finished;
        Optional<StoredResponse> stored = answers.toStored(response);
        if (stored.isPresent()) {
            CompletableFuture<Optional<HttpReply>> reply = new CompletableFuture<>();
            retries.persist(() -> store.insertCompleted(key, fingerprint, stored.get(), clock.instant(), config.ttl()),
                    () -> reply.complete(Optional.empty())).thenApply(result -> {
                        if (result.ending() == PersistRetries.Ending.LEASE_ENDED) {
                            result.logGaveUp(key);
                            answers.emit(Outcome.PERSIST_FAILED, key, watch);
                        } else {
                            answers.emit(result.ending() == PersistRetries.Ending.STORED
                                    ? Outcome.EXECUTED_STORED : Outcome.EXECUTED_NOT_STORED, key, watch);
                        }
                        return Optional.<HttpReply>empty();
                    }).whenComplete((done, failure) -> reply.complete(Optional.empty()));
            finished = reply;
        } else if (response.status() == 409) {
            // A concurrent twin may have finished first; look once more, as the reference design does.
            finished = attempt(() -> store.find(key, clock.instant())).thenApply(raced -> {
                if (raced.isPresent() && raced.get().isCompleted() && raced.get().fingerprint().equals(fingerprint)) {
                    return Optional.of(answers.replay(key, raced.get().response(), watch).reply());
                }
                answers.emit(Outcome.EXECUTED_NOT_STORED, key, watch);
                return Optional.empty();
            });
        } else {
            answers.emit(Outcome.EXECUTED_NOT_STORED, key, watch);
            finished = CompletableFuture.completedFuture(Optional.empty());
        }
        return finished.exceptionally(failure -> {
            log.warn("idempotency.persist_failed key_preview={}: {}", key.keyPreview(),
                    Stages.unwrap(failure).toString());
            answers.emit(Outcome.PERSIST_FAILED, key, watch);
            return Optional.empty();
        });
    }

    @Override
    protected CompletionStage<Void> onFail(Throwable cause) {
        answers.emit(Outcome.EXECUTION_FAILED, key, watch);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return Optional.empty();
    }
}
