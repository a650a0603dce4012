package dev.idempotency.vertx;

import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Execution;
import dev.idempotency.core.HttpReply;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The finishing protocol of one {@link Execution}, which {@link IdempotencyHandler} arms a
 * {@link CapturingResponse} with: when the handler ends the response, {@code fail} if the request
 * failed, else {@code finish} with the capture — on a worker, never the event loop — and only then
 * the response goes out: the engine's replacement reply when it gives one and the head is still
 * ours to write, else the handler's. A reset stream, or a decision that came too late to run the
 * handler, {@code fail}s it.
 *
 * <p>Nothing here counts how often it is called: core's {@link Execution} lets the first
 * {@code finish} or {@code fail} decide and makes later ones no-ops.
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

    Completion(Execution execution, RoutingContext routing, CapturingResponse response, Offloader offloader) {
        this.execution = execution;
        this.routing = routing;
        this.response = response;
        this.offloader = offloader;
    }

    /**
     * Finishes the execution (on a worker for a blocking engine), then lets the response go. Whatever the engine did
     * (stored, released), a retry that arrives after the client saw the response finds it done.
     */
    @Override
    public Future<Void> ended(Buffer last, Supplier<Future<Void>> deliver) {
        Supplier<CompletionStage<Optional<HttpReply>>> step;
        if (routing.failed()) {
            Throwable cause = routing.failure() != null ? routing.failure()
                    : new IllegalStateException("the request failed with status " + routing.statusCode());
            step = () -> execution.failAsync(cause).thenApply(v -> Optional.empty());
        } else {
            CapturedResponse captured = response.captured(last);
            if (!captured.isCaptured()) {
                log.debug("Response for key_preview={} not captured ({}); releasing", execution.key().keyPreview(),
                        response.uncapturedReason());
            }
            step = () -> execution.finishAsync(captured);
        }
        HttpServerResponse server = response.server();
        Promise<Void> sent = Promise.promise();
        offloader.offload(response.context(), step).onComplete(ar -> {
            Optional<HttpReply> instead = Optional.empty();
            if (ar.succeeded()) {
                instead = ar.result();
            } else {
                // The engine never throws for storage: a closed worker pool, or a bug.
                log.warn("Could not finish key_preview={}: {}", execution.key().keyPreview(), String.valueOf(ar.cause()));
            }
            Future<Void> written;
            try {
                written = instead.isPresent() && !server.headWritten()
                        ? IdempotencyHandler.send(server, instead.get())
                        : deliver.get();
            } catch (RuntimeException e) {
                written = Future.failedFuture(e);
            }
            written.onComplete(sent);
        });
        return sent.future();
    }

    @Override
    public void reset() {
        // Nothing reaches the client but the reset, so there is nothing to hold back.
        fail(new IllegalStateException("the response was reset"));
    }

    /** Releases the key (on a worker for a blocking engine); nothing is held back. */
    void fail(Throwable cause) {
        offloader.offload(response.context(), () -> execution.failAsync(cause)).onFailure(e -> log.warn("Could not release key_preview={}: {}", execution.key().keyPreview(), e.toString()));
    }
}
