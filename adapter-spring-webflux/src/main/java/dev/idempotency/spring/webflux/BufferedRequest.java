package dev.idempotency.spring.webflux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A request whose body the filter has read: the handler reads the same bytes again, with a
 * {@code Content-Length} that says how many (a form's re-encoding may be shorter than what came).
 */
final class BufferedRequest extends ServerHttpRequestDecorator {

    private final byte[] body;
    private final DataBufferFactory buffers;
    private final HttpHeaders headers;

    BufferedRequest(ServerHttpRequest request, byte[] body, DataBufferFactory buffers) {
        super(request);
        this.body = body;
        this.buffers = buffers;
        long declared = request.getHeaders().getContentLength();
        if (declared < 0 || declared == body.length) {
            this.headers = request.getHeaders();
        } else {
            HttpHeaders copy = HttpHeaders.copyOf(request.getHeaders());
            copy.setContentLength(body.length);
            this.headers = HttpHeaders.readOnlyHttpHeaders(copy);
        }
    }

    @Override
    public HttpHeaders getHeaders() {
        return headers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(buffers.wrap(body)));
    }

    /**
     * At most {@code limit + 1} bytes of the request's body (so a longer one is seen as too long,
     * and the engine answers it 413); fails when the body cannot be read to its end, and with
     * {@link ReadBefore} when fewer bytes come than its {@code Content-Length} declares: Reactor
     * Netty hands a body out once, so a filter in front that read it leaves an empty one, which
     * must not be fingerprinted as the request's.
     */
    static Mono<byte[]> read(ServerHttpRequest request, int limit) {
        long declared = request.getHeaders().getContentLength();
        return DataBufferUtils.join(DataBufferUtils.takeUntilByteCount(request.getBody(), limit + 1L))
                .map(joined -> {
                    byte[] bytes = new byte[joined.readableByteCount()];
                    joined.read(bytes);
                    DataBufferUtils.release(joined);
                    return bytes;
                })
                .defaultIfEmpty(new byte[0])
                .flatMap(bytes -> declared >= 0 && bytes.length <= limit && bytes.length != declared
                        ? Mono.error(new ReadBefore())
                        : Mono.just(bytes));
    }

    /** The request's body had been read before the filter read it. */
    static final class ReadBefore extends IllegalStateException {

        ReadBefore() {
            super("The request body was read before the idempotency filter", null);
        }
    }
}
