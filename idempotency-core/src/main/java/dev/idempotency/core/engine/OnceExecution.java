package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.internal.WithheldMessage;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guarantee every {@link Execution} gives: the first {@link #finishAsync}, {@link #failAsync}
 * or {@link #abandonAsync} decides and reaches the store; later calls change nothing. A later {@code finish} answers what the
 * first finish answered (or "send the handler's response" after a {@code fail}).
 */
abstract class OnceExecution implements Execution {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final AtomicBoolean decided = new AtomicBoolean();
    private final CompletableFuture<Optional<HttpReply>> outcome = new CompletableFuture<>();

    @Override
    public final CompletionStage<Optional<HttpReply>> finishAsync(CapturedResponse response) {
        if (decided.compareAndSet(false, true)) {
            settle(() -> onFinish(response));
        }
        return outcome.minimalCompletionStage();
    }

    @Override
    public final CompletionStage<Void> failAsync(Throwable cause) {
        if (!decided.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        settle(() -> onFail(cause).thenApply(done -> Optional.empty()));
        return outcome.thenApply(reply -> (Void) null);
    }

    @Override
    public final CompletionStage<Void> abandonAsync() {
        if (!decided.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        settle(() -> onAbandon().thenApply(done -> Optional.empty()));
        return outcome.thenApply(reply -> (Void) null);
    }

    @Override
    public final Optional<HttpReply> finish(CapturedResponse response) {
        finishAsync(response);
        return outcome.join();
    }

    @Override
    public final void fail(Throwable cause) {
        if (decided.compareAndSet(false, true)) {
            settle(() -> onFail(cause).thenApply(done -> Optional.empty()));
            outcome.join();
        }
    }

    /** Stores or releases; never completes exceptionally. */
    protected abstract CompletionStage<Optional<HttpReply>> onFinish(CapturedResponse response);

    /** Gives the key back after the handler failed; never completes exceptionally. */
    protected abstract CompletionStage<Void> onFail(Throwable cause);

    /** Leaves the key to its lease: the handler may still run. Never completes exceptionally. */
    protected CompletionStage<Void> onAbandon() {
        return CompletableFuture.completedFuture(null);
    }

    private void settle(Supplier<CompletionStage<Optional<HttpReply>>> step) {
        CompletionStage<Optional<HttpReply>> stage;
        try {
            stage = step.get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, failure) -> {
            if (failure != null) {
                log.error("Idempotency execution could not be finished", WithheldMessage.of(Stages.unwrap(failure)));
                outcome.complete(Optional.empty());
            } else {
                outcome.complete(reply);
            }
        });
    }
}
