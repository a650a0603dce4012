package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.internal.Exchange;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finishes a response with an entity for {@link IdempotencyFilter}: it holds the entity's bytes as
 * the writer produces them, hands them to the engine, and only then writes them (or the engine's
 * reply instead), inside any entity coder: the bytes stored are the writer's, and each answer is
 * encoded for its own request. A separate provider from the filter, so that it is registered at
 * its own priority with {@code register(Object, int)}, which every runtime supports.
 *
 * <p>A response that cannot be held whole — larger than {@code maxStoredBodyBytes}, or a
 * {@link StreamingOutput} that flushes — goes to the client as it is written and is finished
 * uncaptured once written: a retry gets 410, the resource never runs twice. A writer that fails
 * while its status line has not gone out (the client gets the runtime's 500) releases the key, as
 * a resource that throws does; once the status line went out, the response counts as sent and a
 * retry gets 410, which names the status the client saw.
 */
final class IdempotencyWriter implements WriterInterceptor {

    private final IdempotencyEngine engine;
    private final Predicate<ContainerResponseContext> statusSent;
    private final IdempotencyFeature.Head head;

    /**
     * {@code statusSent}: whether the runtime sent a response's status line, once bytes passed on;
     * {@code head}: told the status and headers of a reply sent instead of the response.
     */
    IdempotencyWriter(IdempotencyEngine engine, Predicate<ContainerResponseContext> statusSent,
                      IdempotencyFeature.Head head) {
        this.engine = engine;
        this.statusSent = statusSent;
        this.head = head;
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        Exchange exchange = IdempotencyFilter.exchange(context.getProperty(IdempotencyFilter.EXCHANGE));
        ContainerResponseContext response = context.getProperty(IdempotencyFilter.RESPONSE)
                instanceof ContainerResponseContext seen ? seen : null;
        if (exchange == null || exchange.decided() || response == null) {
            context.proceed();
            return;
        }
        OutputStream wire = context.getOutputStream();
        CapturingStream capture = new CapturingStream(wire, engine.config().maxStoredBodyBytes(),
                context.getEntity() instanceof StreamingOutput);
        context.setOutputStream(capture);
        try {
            context.proceed();
        } catch (IOException | RuntimeException | Error e) {
            if (capture.passedOn() && statusSent.test(response)) {
                // The client saw the status line and part of the body: the resource ran, and must not run again.
                exchange.finish(CapturedResponse.uncaptured(response.getStatus(), headers(context))).join();
            } else {
                exchange.fail(e).join();
            }
            throw e;
        } finally {
            context.setOutputStream(wire); // the runtime closes the stream it gave, an entity coder's included
        }
        int status = response.getStatus();
        if (capture.passedOn()) {
            exchange.finish(CapturedResponse.uncaptured(status, headers(context))).join();
            return;
        }
        byte[] body = capture.bytes();
        Optional<HttpReply> instead = exchange.finish(CapturedResponse.of(status, headers(context), body)).join();
        if (instead.isPresent()) {
            HttpReply reply = instead.get();
            response.setStatus(reply.status());
            Replies.replaceHeadersKeepingEncoding(context.getHeaders(), reply);
            head.replaced(reply.status(), Replies.strings(context.getHeaders()));
            body = reply.body();
        }
        capture.release(body);
    }

    /** The headers as they will be sent, with the entity's media type. */
    private static Map<String, List<String>> headers(WriterInterceptorContext context) {
        MultivaluedMap<String, Object> headers = context.getHeaders();
        Map<String, List<String>> strings = Replies.strings(headers);
        if (!headers.containsKey(HttpHeaders.CONTENT_TYPE) && context.getMediaType() != null) {
            strings.put(HttpHeaders.CONTENT_TYPE, List.of(context.getMediaType().toString()));
        }
        return strings;
    }
}
