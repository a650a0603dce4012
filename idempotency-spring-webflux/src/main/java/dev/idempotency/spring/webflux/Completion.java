package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The end of one {@link Execution}: the first of {@link #finish}, {@link #fail} and {@link #abandon}
 * decides, later calls do nothing. Both run through {@link EngineSteps}, so a blocking store is called off the
 * event loop.
 */
final class Completion {

    private static final Logger log = LoggerFactory.getLogger(Completion.class);

    private final Execution execution;
    private final EngineSteps steps;
    private final BooleanSupplier rollbackOnly;
    private final HttpReply rolledBack;
    private final AtomicBoolean decided = new AtomicBoolean();

    /**
     * @param rollbackOnly whether the handler's transaction was marked rollback-only (the atomic
     *                     mode's, joined by a {@code @Transactional} method that failed)
     * @param rolledBack   the reply to a response that looks successful when it was
     */
    Completion(Execution execution, EngineSteps steps, BooleanSupplier rollbackOnly, HttpReply rolledBack) {
        this.execution = execution;
        this.steps = steps;
        this.rollbackOnly = rollbackOnly;
        this.rolledBack = rolledBack;
    }

    /** Whether the execution has been finished or failed (or is being). */
    boolean decided() {
        return decided.get();
    }

    /**
     * Finishes the execution with {@code response}: the engine's reply to send instead, or empty
     * (send the response as it is; also when the execution was already decided). When the
     * transaction was marked rollback-only, nothing is committed or stored: a response of 400 or
     * more is sent as it is (the application answered the failure itself), any other is replaced
     * by {@code rolledBack}.
     */
    Mono<Optional<HttpReply>> finish(CapturedResponse response) {
        if (!decided.compareAndSet(false, true)) {
            return Mono.just(Optional.empty());
        }
        if (rollbackOnly.getAsBoolean()) {
            log.debug("The transaction of key_preview={} was marked rollback-only; nothing is committed",
                    execution.key().keyPreview());
            return steps.complete(() -> execution.failAsync(new IllegalStateException(
                            "the transaction was marked rollback-only")))
                    .onErrorResume(e -> {
                        log.warn("Could not roll back key_preview={}: {}", execution.key().keyPreview(),
                                e.getClass().getName());
                        return Mono.empty();
                    })
                    .then(Mono.fromSupplier(() -> response.status() >= 400 ? Optional.<HttpReply>empty()
                            : Optional.of(rolledBack)));
        }
        if (!response.isCaptured()) {
            log.debug("Response for key_preview={} streamed; kept without its body", execution.key().keyPreview());
        }
        return steps.complete(() -> execution.finishAsync(response)).onErrorResume(e -> {
            // The engine never fails for storage: a bug, or a scheduler that was shut down.
            log.warn("Could not finish key_preview={}: {}", execution.key().keyPreview(), e.getClass().getName());
            return Mono.just(Optional.empty());
        });
    }

    /** The handler failed: nothing is stored and the key is released. */
    Mono<Void> fail(Throwable cause) {
        if (!decided.compareAndSet(false, true)) {
            return Mono.empty();
        }
        return steps.complete(() -> execution.failAsync(cause)).onErrorResume(e -> {
            log.warn("Could not release key_preview={}: {}", execution.key().keyPreview(), e.getClass().getName());
            return Mono.empty();
        });
    }

    /**
     * The exchange was cancelled (the client went away) while work the handler started may still
     * run: nothing is stored, and the key stays in flight until its lease ends.
     */
    void abandon() {
        if (decided.compareAndSet(false, true)) {
            log.debug("Exchange for key_preview={} cancelled; its key stays in flight until its lease ends",
                    execution.key().keyPreview());
            steps.complete(() -> execution.abandonAsync()).subscribe(null, e -> log.warn(
                    "Could not abandon key_preview={}: {}", execution.key().keyPreview(), e.getClass().getName()));
        }
    }
}
