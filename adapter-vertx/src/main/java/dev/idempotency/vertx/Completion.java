package dev.idempotency.vertx;

import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.internal.Exchange;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Vert.x Web's signals for one {@link Exchange}, which {@link IdempotencyHandler} arms a
 * {@link CapturingResponse} with. The response ended: {@code abandon} if a server-side timeout failed
 * the request, else {@link Exchange#handled} with the capture and the request's failure, and only then
 * the end goes out (or the engine's replacement reply, while the head is still ours to write). The
 * response broke, or its connection closed once part of the body had gone out or the request had
 * failed: {@code fail}. A connection that closes before that decides nothing: the handler's answer,
 * when it comes, is stored.
 */
final class Completion implements CapturingResponse.Finisher {

    /**
     * Runs an engine step — on a worker when the engine blocks its caller, else as the stage it
     * returns — and delivers its result on {@code context}.
     */
    interface Offloader {
        <T> Future<T> offload(Context context, Supplier<CompletionStage<T>> step);
    }

    private final Exchange exchange;
    private final RoutingContext routing;
    private final CapturingResponse response;

    Completion(IdempotencyEngine engine, Execution execution, RoutingContext routing, CapturingResponse response,
               Offloader offloader) {
        // Steps run on unordered workers: the exchange decides when called, so a later fail never overtakes a finish.
        this.exchange = new Exchange(engine, execution,
                step -> offloader.offload(response.context(), step).toCompletionStage());
        this.routing = routing;
        this.response = response;
    }

    /**
     * Decides the exchange (on a worker for a blocking engine), then lets the response go. Whatever the
     * engine did (stored, released), a retry that arrives after the client saw the end finds it done.
     * Already failed, the rest goes out as it is once the key is released.
     */
    @Override
    public Future<Void> ended(Buffer last, Supplier<Future<Void>> deliver) {
        Throwable failure = !routing.failed() ? null : routing.failure() != null ? routing.failure()
                : new IllegalStateException("the request failed with status " + routing.statusCode());
        CompletionStage<Optional<HttpReply>> decided = routing.failed() && timedOut()
                ? exchange.abandon()
                : exchange.handled(response.captured(last), failure); // a failure handler's 2xx is stored
        return Future.fromCompletionStage(decided).compose(instead -> write(instead, deliver));
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
            return instead.isPresent() && !server.headWritten() ? send(server, instead.get()) : deliver.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    @Override
    public Future<Void> failed(Throwable cause) {
        return Future.fromCompletionStage(exchange.fail(cause)).mapEmpty();
    }

    @Override
    public void closed(boolean streamed) {
        if (streamed || routing.failed()) {
            failed(new IllegalStateException("the connection closed before the response ended"));
        }
    }

    /**
     * Writes a reply of the engine exactly: its status, its headers ({@code Date} included; Vert.x
     * adds none itself) replacing same-named ones, its bytes.
     */
    static Future<Void> send(HttpServerResponse response, HttpReply reply) {
        response.setStatusCode(reply.status());
        response.headers().remove(HttpHeaders.CONTENT_LENGTH);
        reply.headers().forEach((name, values) -> response.headers().set(name, values));
        return response.end(Buffer.buffer(reply.body()));
    }
}
