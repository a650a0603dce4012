package dev.idempotency.framework.internal;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request the engine let through, from its handler to its reply. The first of {@link #finish},
 * {@link #fail} and {@link #abandon} decides when it is called — not when the engine's step runs, so
 * no later signal overtakes it on another thread — and later calls do nothing but complete once the
 * engine has been told the first. Each answers the reply to send instead of the handler's response
 * (only a first finish, or a roll-back, has one); none completes exceptionally.
 *
 * <p>The rule of docs/requests.md ("When the client goes away"): a response the adapter sees is
 * finished (stored), a 2xx an exception handler made included; only the handler's own failure,
 * answered with no 2xx, releases the key ({@link #handled}); a framework that cancels the handler or
 * answers without its result abandons it: nothing stored, the key in flight until its lease ends.
 * The adapter supplies where the engine's steps run ({@link Steps}), and its framework's signals.
 */
public final class Exchange {

    private static final Logger log = LoggerFactory.getLogger(Exchange.class);

    /** Runs a step of the engine: where the caller is, or on a worker when the engine blocks an event loop. */
    @FunctionalInterface
    public interface Steps {
        /** On the caller's thread, as the stage the step returns. */
        Steps INLINE = Supplier::get;

        CompletionStage<Optional<HttpReply>> run(Supplier<CompletionStage<Optional<HttpReply>>> step);
    }

    private final IdempotencyEngine engine;
    private final Execution execution;
    private final Steps steps;
    private final AtomicBoolean decided = new AtomicBoolean();
    private final CompletableFuture<Optional<HttpReply>> told = new CompletableFuture<>();

    public Exchange(IdempotencyEngine engine, Execution execution, Steps steps) {
        this.engine = engine;
        this.execution = execution;
        this.steps = steps;
    }

    /** Its steps run on the caller's thread. */
    public Exchange(IdempotencyEngine engine, Execution execution) {
        this(engine, execution, Steps.INLINE);
    }

    public Execution execution() {
        return execution;
    }

    /** Whether it has been finished, failed or abandoned (or is being). */
    public boolean decided() {
        return decided.get();
    }

    /**
     * Stores the response (or releases the key, as the engine's replay policy says); answers the
     * engine's reply to send instead of it, if any.
     */
    public CompletableFuture<Optional<HttpReply>> finish(CapturedResponse response) {
        return decide("finish", () -> {
            if (!response.isCaptured()) {
                log.debug("Response for key_preview={} not captured; kept without its body unless it failed",
                        execution.key().keyPreview());
            }
            return execution.finishAsync(response);
        });
    }

    /** The handler failed: nothing is stored and the key is released. */
    public CompletableFuture<Optional<HttpReply>> fail(Throwable cause) {
        return decide("release", () -> execution.failAsync(cause).thenApply(done -> Optional.empty()));
    }

    /**
     * The client went away or the framework answered without the handler's result, while its work may
     * still run: nothing is stored and the key stays in flight until its lease ends.
     */
    public CompletableFuture<Optional<HttpReply>> abandon() {
        return decide("abandon", () -> execution.abandonAsync().thenApply(done -> Optional.empty()));
    }

    /**
     * The handler's outcome as the client gets it: a {@code failure} answered with no 2xx releases the
     * key; any other response, an exception handler's 2xx included, is finished.
     */
    public CompletableFuture<Optional<HttpReply>> handled(CapturedResponse response, Throwable failure) {
        return failure != null && !response.isSuccessful() ? fail(failure) : finish(response);
    }

    /**
     * The request ended before it was decided: after a {@code failure} nothing mapped, the key is
     * released; a response that went out unseen ({@code sent}, may be null) counts as sent; with
     * neither, the framework dropped the response or cancelled the handler: abandoned.
     */
    public CompletableFuture<Optional<HttpReply>> ended(Throwable failure, CapturedResponse sent) {
        if (failure != null) {
            return fail(failure);
        }
        return sent != null ? finish(sent) : abandon();
    }

    /**
     * The handler's transaction was marked rollback-only (a participating {@code @Transactional}
     * method failed): nothing is committed or stored, the key is released. A response of {@code status}
     * 400 or more stands (the application answered the failure itself); any other is replaced by a
     * 500, as Spring answers an {@code UnexpectedRollbackException}.
     */
    public CompletableFuture<Optional<HttpReply>> rolledBack(int status) {
        if (!decided.compareAndSet(false, true)) {
            return later();
        }
        log.debug("The transaction of key_preview={} was marked rollback-only; nothing is committed",
                execution.key().keyPreview());
        IllegalStateException cause = new IllegalStateException("the transaction was marked rollback-only");
        return run("roll back", () -> execution.failAsync(cause).thenApply(done -> Optional.empty()))
                .thenApply(done -> status >= 400 ? Optional.<HttpReply>empty()
                        : Optional.of(engine.problem("idempotency_transaction_rolled_back", "Transaction rolled back",
                                500, "A transactional step failed; nothing of this request was committed").toReply()));
    }

    /**
     * The handler would go on on another thread, outside the atomic mode's transaction bound to the
     * request's: refused before it runs on — nothing committed or stored, the key released — with a
     * problem to send.
     */
    public CompletableFuture<Optional<HttpReply>> refuseAsynchronous() {
        log.warn("An asynchronous handler was refused in the atomic mode (key_preview={}): its work would run "
                + "outside the request's transaction", execution.key().keyPreview());
        IllegalStateException cause = new IllegalStateException("asynchronous handler refused in the atomic mode");
        return decide("release", () -> execution.failAsync(cause).thenApply(done -> Optional.of(engine.problem(
                "idempotency_async_not_atomic", "Asynchronous handler in the atomic mode", 500,
                "This endpoint answers asynchronously; in the atomic mode its work would run outside the "
                        + "request's transaction, so it was refused and the transaction rolled back").toReply())));
    }

    private CompletableFuture<Optional<HttpReply>> decide(String step,
                                                          Supplier<CompletionStage<Optional<HttpReply>>> engineStep) {
        return decided.compareAndSet(false, true) ? run(step, engineStep) : later();
    }

    /** A call after the first: nothing to send instead, once the engine has been told the first. */
    private CompletableFuture<Optional<HttpReply>> later() {
        return told.thenApply(first -> Optional.empty());
    }

    private CompletableFuture<Optional<HttpReply>> run(String step,
                                                       Supplier<CompletionStage<Optional<HttpReply>>> engineStep) {
        CompletionStage<Optional<HttpReply>> stage;
        try {
            stage = steps.run(engineStep);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, failure) -> {
            if (failure != null) { // the engine never fails for storage: a closed worker pool, or a bug
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                log.warn("Could not {} key_preview={}: {}", step, execution.key().keyPreview(),
                        cause.getClass().getName());
            }
            told.complete(failure != null || reply == null ? Optional.empty() : reply);
        });
        return told.copy();
    }
}
