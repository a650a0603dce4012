package dev.idempotency.vertx;

import dev.idempotency.core.CapturedResponse;
import dev.idempotency.core.Execution;
import dev.idempotency.core.HttpReply;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpFrame;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.StreamPriority;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.RoutingContext;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The response route handlers write to. Until {@link #arm} it passes every call through; once
 * armed for an {@link Execution} it copies the status, headers and body bytes on their way out
 * and holds the final {@code end} back until the engine has finished the execution (the record
 * stored, or the key released), then lets it go — or sends the engine's replacement reply.
 *
 * <p>Every fluent method returns this wrapper, never the server's response, so a chain such as
 * {@code response.putHeader(..).end(..)} cannot slip past the copy.
 */
final class CapturingResponse implements HttpServerResponse {

    private static final Logger log = LoggerFactory.getLogger(CapturingResponse.class);
    private static final String RESPONSE_WRITTEN = "Response has already been written";
    private static final String HEAD_SENT = "Response head already sent";

    private final HttpServerResponse delegate;
    private final Context context;

    // Guarded by this. Handlers may write from worker threads (blocking handlers), so the few
    // fields that several threads can see are read and written under the lock.
    private Guard guard;
    private boolean endRequested;
    private Handler<Void> headersEndHandler;

    CapturingResponse(HttpServerResponse delegate, Context context) {
        this.delegate = delegate;
        this.context = context;
    }

    /** Runs an engine step off the event loop and delivers its result on {@code context}. */
    interface Offloader {
        <T> Future<T> offload(Context context, Callable<T> step);
    }

    /** One execution being guarded: what was written so far, and whether it may still be stored. */
    static final class Guard {
        private final Execution execution;
        private final RoutingContext routing;
        private final int limit;
        private final Offloader offloader;
        private Buffer body = Buffer.buffer();
        private String uncapturable;

        Guard(Execution execution, RoutingContext routing, int limit, Offloader offloader) {
            this.execution = execution;
            this.routing = routing;
            this.limit = limit;
            this.offloader = offloader;
        }

        synchronized void append(Buffer data) {
            if (body == null) {
                return;
            }
            if ((long) body.length() + data.length() > limit) {
                uncapturable("larger than maxStoredBodyBytes");
            } else {
                body.appendBuffer(data);
            }
        }

        /** From now on the body is not kept: the response will not be stored. */
        synchronized void uncapturable(String reason) {
            if (uncapturable == null) {
                uncapturable = reason;
                body = null;
            }
        }

        synchronized byte[] bytesWith(Buffer last) {
            if (body == null) {
                return null;
            }
            if (last.length() == 0) {
                return body.getBytes();
            }
            if ((long) body.length() + last.length() > limit) {
                uncapturable("larger than maxStoredBodyBytes");
                return null;
            }
            return body.copy().appendBuffer(last).getBytes();
        }

        synchronized String uncapturableReason() {
            return uncapturable;
        }
    }

    Context context() {
        return context;
    }

    synchronized boolean isArmed() {
        return guard != null;
    }

    synchronized void arm(Guard guard) {
        if (this.guard != null) {
            throw new IllegalStateException("Response already guarded");
        }
        if (endRequested) {
            throw new IllegalStateException(RESPONSE_WRITTEN);
        }
        this.guard = guard;
    }

    private synchronized Guard guard() {
        return guard;
    }

    // ------------------------------------------------------------------ ending

    @Override
    public Future<Void> end(Buffer chunk) {
        checkNotEnded();
        // Before the end is marked: these handlers may still change the status and headers.
        runHeadersEndHandler();
        Guard g;
        synchronized (this) {
            checkNotEnded();
            endRequested = true;
            g = guard;
        }
        if (g == null) {
            return delegate.end(chunk);
        }
        byte[] bytes = g.routing.failed() ? null : g.bytesWith(chunk);
        return settleThen(g, bytes, () -> delegate.end(chunk));
    }

    @Override
    public Future<Void> end(String chunk) {
        return end(Buffer.buffer(chunk));
    }

    @Override
    public Future<Void> end(String chunk, String enc) {
        return end(Buffer.buffer(chunk, enc));
    }

    @Override
    public Future<Void> end() {
        return end(Buffer.buffer());
    }

    @Override
    public Future<Void> send(ReadStream<Buffer> body) {
        Guard g = guard();
        if (g != null) {
            g.uncapturable("streamed with send(ReadStream)");
        }
        if (!headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            setChunked(true);
        }
        return body.pipeTo(this);
    }

    @Override
    public Future<Void> sendFile(String filename, long offset, long length) {
        return sendFile(() -> delegate.sendFile(filename, offset, length));
    }

    @Override
    public Future<Void> sendFile(FileChannel channel, long offset, long length) {
        return sendFile(() -> delegate.sendFile(channel, offset, length));
    }

    @Override
    public Future<Void> sendFile(RandomAccessFile file, long offset, long length) {
        return sendFile(() -> delegate.sendFile(file, offset, length));
    }

    /** A file is never stored: the key is released, then the file goes out. */
    private Future<Void> sendFile(Supplier<Future<Void>> send) {
        runHeadersEndHandler();
        Guard g = guard();
        if (g == null) {
            return send.get();
        }
        g.uncapturable("sendFile");
        return settleThen(g, null, send);
    }

    @Override
    public Future<Void> reset(long code) {
        Guard g = guard();
        if (g != null) {
            // Nothing reaches the client but the reset, so there is nothing to hold back. A reset
            // after the execution was finished changes nothing: core lets only the first step decide.
            Execution execution = g.execution;
            Throwable cause = new IllegalStateException("the response was reset");
            g.offloader.offload(context, () -> {
                execution.fail(cause);
                return null;
            }).onFailure(e -> log.warn("Could not release key_preview={}: {}", execution.key().keyPreview(),
                    e.toString()));
        }
        return delegate.reset(code);
    }

    /**
     * Finishes the execution on a worker — {@code fail} when the request failed, otherwise
     * {@code finish} with the captured response ({@code bytes}) or an uncaptured one (null) — and
     * only then lets the response go: the engine's replacement reply when it gives one and the
     * head is still ours to write, else {@code deliver}. Whatever the engine did (stored,
     * released), a retry that arrives after the client saw the response finds it done.
     */
    private Future<Void> settleThen(Guard g, byte[] bytes, Supplier<Future<Void>> deliver) {
        Execution execution = g.execution;
        Callable<Optional<HttpReply>> step;
        if (g.routing.failed()) {
            Throwable cause = g.routing.failure() != null ? g.routing.failure()
                    : new IllegalStateException("the request failed with status " + g.routing.statusCode());
            step = () -> {
                execution.fail(cause);
                return Optional.empty();
            };
        } else {
            Map<String, List<String>> headers = headersOf(delegate.headers());
            int status = delegate.getStatusCode();
            if (bytes == null) {
                log.debug("Response for key_preview={} not captured ({}); releasing", execution.key().keyPreview(),
                        g.uncapturableReason());
            }
            CapturedResponse captured = bytes == null ? CapturedResponse.uncaptured(status, headers)
                    : CapturedResponse.of(status, headers, bytes);
            step = () -> execution.finish(captured);
        }
        Promise<Void> sent = Promise.promise();
        g.offloader.offload(context, step).onComplete(ar -> {
            Optional<HttpReply> instead = Optional.empty();
            if (ar.succeeded()) {
                instead = ar.result();
            } else {
                // The engine never throws for storage: a closed worker pool, or a bug.
                log.warn("Could not finish key_preview={}: {}", execution.key().keyPreview(), String.valueOf(ar.cause()));
            }
            Future<Void> written;
            try {
                written = instead.isPresent() && !delegate.headWritten()
                        ? IdempotencyHandler.send(delegate, instead.get())
                        : deliver.get();
            } catch (RuntimeException e) {
                written = Future.failedFuture(e);
            }
            written.onComplete(sent);
        });
        return sent.future();
    }

    /** The headers as set, grouped by name case-insensitively; HTTP/2 pseudo-headers left out. */
    static Map<String, List<String>> headersOf(MultiMap headers) {
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, List<String>> grouped = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : headers) {
            String name = e.getKey();
            if (name.startsWith(":")) {
                continue;
            }
            String first = names.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> name);
            grouped.computeIfAbsent(first, n -> new ArrayList<>()).add(e.getValue());
        }
        return grouped;
    }

    // ------------------------------------------------------------------ writing

    @Override
    public Future<Void> write(Buffer data) {
        checkNotEnded();
        runHeadersEndHandler();
        Guard g = guard();
        if (g != null) {
            g.append(data);
        }
        return delegate.write(data);
    }

    @Override
    public Future<Void> write(String chunk, String enc) {
        return write(Buffer.buffer(chunk, enc));
    }

    @Override
    public Future<Void> write(String chunk) {
        return write(Buffer.buffer(chunk));
    }

    @Override
    public Future<Void> writeHead() {
        synchronized (this) {
            if (endRequested) {
                throw new IllegalStateException(HEAD_SENT);
            }
        }
        runHeadersEndHandler();
        return delegate.writeHead();
    }

    /** A writer that watches back-pressure streams its body: such a body is not stored. */
    @Override
    public boolean writeQueueFull() {
        Guard g = guard();
        if (g != null) {
            g.uncapturable("streamed (writeQueueFull)");
        }
        return delegate.writeQueueFull();
    }

    @Override
    public HttpServerResponse drainHandler(Handler<Void> handler) {
        Guard g = guard();
        if (g != null && handler != null) {
            g.uncapturable("streamed (drainHandler)");
        }
        delegate.drainHandler(handler);
        return this;
    }

    /**
     * Vert.x runs this handler just before the head is written, which with the end held back is
     * later than the copy is taken. So the wrapper keeps it and runs it itself before the first
     * write, end or file — and leaves a guard with the server's response for any other path.
     */
    @Override
    public HttpServerResponse headersEndHandler(Handler<Void> handler) {
        synchronized (this) {
            headersEndHandler = handler;
        }
        delegate.headersEndHandler(handler == null ? null : v -> runHeadersEndHandler());
        return this;
    }

    private void runHeadersEndHandler() {
        Handler<Void> handler;
        synchronized (this) {
            handler = headersEndHandler;
            headersEndHandler = null;
        }
        if (handler != null) {
            handler.handle(null);
        }
    }

    private synchronized void checkNotEnded() {
        if (endRequested) {
            throw new IllegalStateException(RESPONSE_WRITTEN);
        }
    }

    private void checkHeadNotSent() {
        synchronized (this) {
            if (endRequested) {
                throw new IllegalStateException(HEAD_SENT);
            }
        }
    }

    // ------------------------------------------------------------------ state

    @Override
    public boolean ended() {
        synchronized (this) {
            if (endRequested) {
                return true;
            }
        }
        return delegate.ended();
    }

    @Override
    public boolean headWritten() {
        synchronized (this) {
            if (endRequested) {
                return true; // it is on its way: nobody may change it any more
            }
        }
        return delegate.headWritten();
    }

    @Override
    public boolean closed() {
        return delegate.closed();
    }

    @Override
    public long bytesWritten() {
        return delegate.bytesWritten();
    }

    @Override
    public int streamId() {
        return delegate.streamId();
    }

    // ------------------------------------------------------------------ status and headers

    @Override
    public int getStatusCode() {
        return delegate.getStatusCode();
    }

    @Override
    public HttpServerResponse setStatusCode(int statusCode) {
        checkHeadNotSent();
        delegate.setStatusCode(statusCode);
        return this;
    }

    @Override
    public String getStatusMessage() {
        return delegate.getStatusMessage();
    }

    @Override
    public HttpServerResponse setStatusMessage(String statusMessage) {
        checkHeadNotSent();
        delegate.setStatusMessage(statusMessage);
        return this;
    }

    @Override
    public HttpServerResponse setChunked(boolean chunked) {
        checkHeadNotSent();
        delegate.setChunked(chunked);
        return this;
    }

    @Override
    public boolean isChunked() {
        return delegate.isChunked();
    }

    @Override
    public MultiMap headers() {
        return delegate.headers();
    }

    @Override
    public HttpServerResponse putHeader(String name, String value) {
        checkHeadNotSent();
        delegate.putHeader(name, value);
        return this;
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, CharSequence value) {
        checkHeadNotSent();
        delegate.putHeader(name, value);
        return this;
    }

    @Override
    public HttpServerResponse putHeader(String name, Iterable<String> values) {
        checkHeadNotSent();
        delegate.putHeader(name, values);
        return this;
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, Iterable<CharSequence> values) {
        checkHeadNotSent();
        delegate.putHeader(name, values);
        return this;
    }

    @Override
    public MultiMap trailers() {
        return delegate.trailers();
    }

    @Override
    public HttpServerResponse putTrailer(String name, String value) {
        delegate.putTrailer(name, value);
        return this;
    }

    @Override
    public HttpServerResponse putTrailer(CharSequence name, CharSequence value) {
        delegate.putTrailer(name, value);
        return this;
    }

    @Override
    public HttpServerResponse putTrailer(String name, Iterable<String> values) {
        delegate.putTrailer(name, values);
        return this;
    }

    @Override
    public HttpServerResponse putTrailer(CharSequence name, Iterable<CharSequence> value) {
        delegate.putTrailer(name, value);
        return this;
    }

    @Override
    public HttpServerResponse addCookie(Cookie cookie) {
        checkHeadNotSent();
        delegate.addCookie(cookie);
        return this;
    }

    @Override
    public Cookie removeCookie(String name, boolean invalidate) {
        return delegate.removeCookie(name, invalidate);
    }

    @Override
    public Set<Cookie> removeCookies(String name, boolean invalidate) {
        return delegate.removeCookies(name, invalidate);
    }

    @Override
    public Cookie removeCookie(String name, String domain, String path, boolean invalidate) {
        return delegate.removeCookie(name, domain, path, invalidate);
    }

    // ------------------------------------------------------------------ plain delegation

    @Override
    public HttpServerResponse exceptionHandler(Handler<Throwable> handler) {
        delegate.exceptionHandler(handler);
        return this;
    }

    @Override
    public HttpServerResponse setWriteQueueMaxSize(int maxSize) {
        delegate.setWriteQueueMaxSize(maxSize);
        return this;
    }

    @Override
    public HttpServerResponse closeHandler(Handler<Void> handler) {
        delegate.closeHandler(handler);
        return this;
    }

    @Override
    public HttpServerResponse endHandler(Handler<Void> handler) {
        delegate.endHandler(handler);
        return this;
    }

    @Override
    public HttpServerResponse bodyEndHandler(Handler<Void> handler) {
        delegate.bodyEndHandler(handler);
        return this;
    }

    @Override
    public Future<Void> writeContinue() {
        return delegate.writeContinue();
    }

    @Override
    public Future<Void> writeEarlyHints(MultiMap headers) {
        return delegate.writeEarlyHints(headers);
    }

    @Override
    public Future<HttpServerResponse> push(HttpMethod method, HostAndPort authority, String path, MultiMap headers) {
        return delegate.push(method, authority, path, headers);
    }

    @Override
    public Future<Void> writeCustomFrame(int type, int flags, Buffer payload) {
        return delegate.writeCustomFrame(type, flags, payload);
    }

    @Override
    public Future<Void> writeCustomFrame(HttpFrame frame) {
        return delegate.writeCustomFrame(frame);
    }

    @Override
    public HttpServerResponse setStreamPriority(StreamPriority streamPriority) {
        delegate.setStreamPriority(streamPriority);
        return this;
    }
}
