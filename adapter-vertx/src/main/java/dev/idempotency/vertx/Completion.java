package dev.idempotency.vertx;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The finishing protocol of one {@link Execution}, which {@link IdempotencyHandler} arms a
 * {@link CapturingResponse} with; the first signal decides. The response ended: {@code abandon} if a
 * server-side timeout failed the request, {@code fail} if the request failed and was not answered
 * with a 2xx, else {@code finish} with the capture, and only then the end goes out (or the engine's
 * replacement reply, while the head is still ours to write). The response broke, or its connection
 * closed once part of the body had gone out or the request had failed: {@code fail}. A connection
 * that closes before that decides nothing: the handler's answer, when it comes, is stored.
 */
final class Completion implements CapturingResponse.Finisher {

    private static final Logger log = LoggerFactory.getLogger(Completion.class);

    /**
     * Runs an engine step — on a worker when the engine blocks its caller, else as the stage it
     * returns — and delivers its result on {@code context}.
     */
    interface Offloader {
        <T> Future<T> offload(Context context, Supplier<CompletionStage<T>> step);
    }

    private final Execution execution;
    private final RoutingContext routing;
    private final CapturingResponse response;
    private final Offloader offloader;
    // Steps run on unordered workers: a later fail could overtake a finish there, so they are decided here.
    private final AtomicBoolean decided = new AtomicBoolean();
    private final Promise<Void> told = Promise.promise(); // the engine has been told the decision

    Completion(Execution execution, RoutingContext routing, CapturingResponse response, Offloader offloader) {
        this.execution = execution;
        this.routing = routing;
        this.response = response;
        this.offloader = offloader;
    }

    /**
     * Finishes the execution (on a worker for a blocking engine), then lets the response go. Whatever the engine did
     * (stored, released), a retry that arrives after the client saw the end finds it done.
     */
    @Override
    public Future<Void> ended(Buffer last, Supplier<Future<Void>> deliver) {
        if (!decided.compareAndSet(false, true)) {
            // Already failed: the rest goes out as it is, once the key is released.
            return told.future().transform(ar -> write(Optional.empty(), deliver));
        }
        Supplier<CompletionStage<Optional<HttpReply>>> step;
        CapturedResponse captured = response.captured(last);
        if (routing.failed() && timedOut()) {
            step = () -> execution.abandonAsync().thenApply(v -> Optional.empty());
        } else if (routing.failed() && !captured.isSuccessful()) {
            Throwable cause = routing.failure() != null ? routing.failure()
                    : new IllegalStateException("the request failed with status " + routing.statusCode());
            step = () -> execution.failAsync(cause).thenApply(v -> Optional.empty());
        } else { // a failure handler that answered 2xx (an exception mapped to a success) is stored like any 2xx
            if (!captured.isCaptured()) {
                log.debug("Response for key_preview={} not captured ({}); kept without its body unless it failed",
                        execution.key().keyPreview(), response.uncapturedReason());
            }
            step = () -> execution.finishAsync(captured);
        }
        Promise<Void> sent = Promise.promise();
        offloader.offload(response.context(), step).onComplete(ar -> {
            if (ar.failed()) {
                // The engine never throws for storage: a closed worker pool, or a bug.
                log.warn("Could not finish key_preview={}: {}", execution.key().keyPreview(), String.valueOf(ar.cause()));
            }
            told.complete();
            write(ar.succeeded() ? ar.result() : Optional.empty(), deliver).onComplete(sent);
        });
        return sent.future();
    }

    /**
     * Whether the request was failed as a server-side timeout fails it: {@code ctx.fail(status)} without a
     * cause and with a timeout's status ({@code TimeoutHandler}: 503 by default). The route's handler may still
     * be running, so the key is abandoned (in flight until its lease ends), never released.
     */
    private boolean timedOut() {
        int status = routing.statusCode();
        return routing.failure() == null && (status == 408 || status == 503 || status == 504);
    }

    private Future<Void> write(Optional<HttpReply> instead, Supplier<Future<Void>> deliver) {
        HttpServerResponse server = response.server();
        try {
            return instead.isPresent() && !server.headWritten()
                    ? IdempotencyHandler.send(server, instead.get())
                    : deliver.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    @Override
    public Future<Void> failed(Throwable cause) {
        if (decided.compareAndSet(false, true)) {
            offloader.offload(response.context(), () -> execution.failAsync(cause)).onComplete(ar -> {
                if (ar.failed()) {
                    log.warn("Could not release key_preview={}: {}", execution.key().keyPreview(), ar.cause().toString());
                }
                told.complete();
            });
        }
        return told.future();
    }

    @Override
    public void closed(boolean streamed) {
        if (streamed || routing.failed()) {
            failed(new IllegalStateException("the connection closed before the response ended"));
        }
    }
}
