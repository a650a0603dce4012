package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.framework.internal.Exchange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Mono;

/**
 * The response the handler writes to, under a key. A body written with {@link #writeWith} (what
 * WebFlux's encoders use for a whole body, a {@code Mono} or a {@code Flux}) is joined and held: the
 * execution is finished with its exact bytes before any of them goes out, then they are sent — or
 * the engine's reply instead. A response completed without a body is finished the same way. A body
 * written with {@link #writeAndFlushWith} (SSE, NDJSON and the other streaming media types) streams:
 * it passes through as it is written, and once it has ended the execution is finished without its
 * body; a stream that fails is failed. A body that fails before anything was written fails the
 * execution. When the handler's transaction was marked rollback-only, {@link Exchange#rolledBack} answers.
 */
final class CapturingResponse extends ServerHttpResponseDecorator {

    private final Exchange exchange;
    private final BooleanSupplier rollbackOnly;
    private final HttpHeaders before;

    /**
     * @param response     not yet handed to the handler; the headers set on it so far are kept for a reply sent instead
     * @param rollbackOnly whether the handler's transaction was marked rollback-only (the atomic mode's, joined)
     */
    CapturingResponse(ServerHttpResponse response, Exchange exchange, BooleanSupplier rollbackOnly) {
        super(response);
        this.exchange = exchange;
        this.rollbackOnly = rollbackOnly;
        this.before = HttpHeaders.copyOf(response.getHeaders());
    }

    /** {@code step} of the exchange as a {@code Mono}. */
    static <T> Mono<T> mono(CompletableFuture<T> step) {
        return Mono.fromFuture(step, true);
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        if (exchange.decided()) {
            return super.writeWith(body);
        }
        return DataBufferUtils.join(body)
                .map(joined -> {
                    byte[] bytes = new byte[joined.readableByteCount()];
                    joined.read(bytes);
                    DataBufferUtils.release(joined);
                    return bytes;
                })
                .defaultIfEmpty(new byte[0])
                .onErrorResume(e -> mono(exchange.fail(e)).then(Mono.error(e)))
                .flatMap(this::finishAndSend);
    }

    @Override
    public Mono<Void> setComplete() {
        if (exchange.decided()) {
            return super.setComplete();
        }
        return finishAndSend(null);
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        if (exchange.decided()) {
            return super.writeAndFlushWith(body);
        }
        CapturedResponse head = CapturedResponse.uncaptured(status(), headers());
        return super.writeAndFlushWith(body)
                .onErrorResume(e -> mono(exchange.fail(e)).then(Mono.error(e)))
                .then(Mono.defer(() -> mono(exchange.finish(head)).then()));
    }

    /** Finishes with the held body ({@code null}: none), then sends it, or the engine's reply instead. */
    private Mono<Void> finishAndSend(byte[] bytes) {
        CapturedResponse captured = CapturedResponse.of(status(), headers(), bytes == null ? new byte[0] : bytes);
        CompletableFuture<Optional<HttpReply>> finished = rollbackOnly.getAsBoolean()
                ? exchange.rolledBack(captured.status()) : exchange.finish(captured);
        return mono(finished).flatMap(instead -> {
            if (instead.isPresent() && !isCommitted()) {
                HttpHeaders headers = getHeaders();
                headers.clear(); // the handler's headers go; those of the filters in front of it stay
                headers.putAll(before);
                return Replies.write(instead.get(), getDelegate());
            }
            if (bytes == null) {
                return super.setComplete();
            }
            HttpHeaders headers = getHeaders();
            if (headers.getContentLength() < 0 && !headers.containsHeader(HttpHeaders.TRANSFER_ENCODING)) {
                headers.setContentLength(bytes.length);
            }
            return super.writeWith(Mono.fromSupplier(() -> bufferFactory().wrap(bytes)));
        });
    }

    private int status() {
        HttpStatusCode status = getStatusCode();
        return status == null ? 200 : status.value();
    }

    /** The headers as set now, in order. */
    private Map<String, List<String>> headers() {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        getHeaders().forEach((name, values) -> copy.put(name, new ArrayList<>(values)));
        return copy;
    }
}
