package dev.idempotency.micronaut;

import dev.idempotency.framework.internal.Exchange;
import dev.idempotency.core.adapter.HttpReply;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.core.convert.ConversionService;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.types.files.StreamedFile;
import java.io.InputStream;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a request's {@link Exchange} until its streamed body has been sent. A body the server
 * sends as it is produced — a {@code Publisher} of several items (a {@code Flux}, server-sent
 * events), an {@code InputStream} or a {@code StreamedFile} — may still be in the making when the
 * response filter sees it, so it is replaced by one that ends the execution when the stream ends:
 * sent whole, it is finished as {@code CapturedResponse.uncaptured} (a success is kept without its
 * body); failed part-way, it is failed (the key is released). A client that leaves before the end
 * leaves the handler's answer standing: finished as sent, so a retry is not run again.
 */
final class StreamedResponses {

    private static final Logger log = LoggerFactory.getLogger(StreamedResponses.class);

    private final ConversionService conversions;
    private final Executor blocking;

    StreamedResponses(ConversionService conversions, Executor blocking) {
        this.conversions = conversions;
        this.blocking = blocking;
    }

    /**
     * Replaces a streamed body of {@code response} with one that ends {@code exchange} when it has
     * been sent, and says whether it did; {@code false} leaves the response untouched.
     */
    @SuppressWarnings("unchecked")
    boolean holdUntilSent(HttpRequest<?> request, MutableHttpResponse<?> response, Exchange exchange) {
        Object body = response.body();
        if (body == null || request.getMethod() == HttpMethod.HEAD) {
            return false;
        }
        MutableHttpResponse<Object> mutable = (MutableHttpResponse<Object>) response;
        StreamEnd end = new ExchangeEnd(exchange, response);
        if (Publishers.isConvertibleToPublisher(body)) {
            Publisher<Object> items = Publishers.convertToPublisher(conversions, body);
            mutable.body(new WatchedPublisher<>(items, end, blocking));
            return true;
        }
        if (body instanceof StreamedFile file && !request.getHeaders().contains(HttpHeaders.IF_MODIFIED_SINCE)) {
            // (With If-Modified-Since the server may answer 304 and never read, nor close, the stream.)
            file.process(response); // its Content-Disposition: the copy below cannot carry the attachment name
            mutable.body(new StreamedFile(new WatchedInputStream(file.getInputStream(), end, blocking),
                    file.getMediaType(), file.getLastModified(), file.getLength()));
            return true;
        }
        if (body instanceof InputStream stream) {
            mutable.body(new WatchedInputStream(stream, end, blocking));
            return true;
        }
        return false;
    }

    /** Ends an exchange the way its streamed response ended. Blocking: called off the event loop. */
    private record ExchangeEnd(Exchange exchange, MutableHttpResponse<?> response) implements StreamEnd {

        @Override
        public void sent() {
            // Status and headers as sent: the server may have added some (Content-Type) since the filter ran.
            Optional<HttpReply> instead = exchange.finish(ResponseCapture.uncaptured(response)).join();
            if (instead.isPresent()) {
                // Headers and part of the body are out: the only way left to say "not applied" is to break it off.
                throw new IllegalStateException("Status " + instead.get().status() + " instead of the streamed "
                        + "response for key_preview=" + exchange.execution().key().keyPreview());
            }
        }

        @Override
        public void failed(Throwable cause) {
            exchange.fail(cause).join();
        }

        @Override
        public void abandoned() {
            log.debug("The client left before the end of the streamed response for key_preview={}; "
                    + "it is kept as sent", exchange.execution().key().keyPreview());
            exchange.finish(ResponseCapture.uncaptured(response)).join();
        }
    }
}
