package dev.idempotency.vertx;

import dev.idempotency.core.CapturedResponse;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.streams.ReadStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The response route handlers write to: the capture. Until {@link #arm} it passes every call
 * through; once armed it copies the body bytes on their way out (up to a limit; a streamed body or
 * a file is not kept), and hands the final {@code end} — or a file, or a reset — to its
 * {@link Finisher} instead of the server, which lets it go once the execution is finished.
 *
 * <p>What the capture guarantees the finisher: one end at most (a second throws, as Vert.x does);
 * once the end is requested the head is treated as sent, so nobody can change the status or
 * headers the finisher reads; and the response's {@code headersEndHandler} has run before the
 * copy is taken.
 */
final class CapturingResponse extends ForwardingResponse {

    private static final String RESPONSE_WRITTEN = "Response has already been written";
    private static final String HEAD_SENT = "Response head already sent";

    /** Where an armed response's end goes: {@link Completion}. */
    interface Finisher {
        /**
         * The handler ended the response ({@code last} is its final chunk, empty for a file): finish
         * the execution, then send the engine's replacement reply or {@code deliver} the response.
         */
        Future<Void> ended(Buffer last, Supplier<Future<Void>> deliver);

        /** The handler reset the stream: nothing reaches the client but the reset. */
        void reset();
    }

    private final Context context;

    // Guarded by this. Handlers may write from worker threads (blocking handlers), so the fields
    // that several threads can see are read and written under the lock.
    private Finisher finisher;
    private int limit;
    private Buffer body; // null when unarmed or no longer kept
    private String uncapturable;
    private boolean endRequested;
    private Handler<Void> headersEndHandler;

    CapturingResponse(HttpServerResponse delegate, Context context) {
        super(delegate);
        this.context = context;
    }

    /** The request's context. */
    Context context() {
        return context;
    }

    /** The server's own response, for the finisher to write to once the end is requested. */
    HttpServerResponse server() {
        return delegate;
    }

    synchronized boolean isArmed() {
        return finisher != null;
    }

    /** From now on, copy bodies of up to {@code limit} bytes and hand the end to {@code finisher}. */
    synchronized void arm(int limit, Finisher finisher) {
        if (this.finisher != null) {
            throw new IllegalStateException("Response already guarded");
        }
        if (endRequested) {
            throw new IllegalStateException(RESPONSE_WRITTEN);
        }
        this.finisher = finisher;
        this.limit = limit;
        this.body = Buffer.buffer();
    }

    private synchronized Finisher finisher() {
        return finisher;
    }

    // ------------------------------------------------------------------ the capture

    private synchronized void append(Buffer data) {
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
    private synchronized void uncapturable(String reason) {
        if (finisher != null && uncapturable == null) {
            uncapturable = reason;
            body = null;
        }
    }

    /**
     * What was written, {@code last} included: the status and headers as set now, and the bytes —
     * or none ({@link CapturedResponse#uncaptured}) when the body was not kept.
     */
    CapturedResponse captured(Buffer last) {
        byte[] bytes = bytesWith(last);
        Map<String, List<String>> headers = headersOf(delegate.headers());
        int status = delegate.getStatusCode();
        return bytes == null ? CapturedResponse.uncaptured(status, headers) : CapturedResponse.of(status, headers, bytes);
    }

    private synchronized byte[] bytesWith(Buffer last) {
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

    /** Why the body was not kept; null while it is. */
    synchronized String uncapturedReason() {
        return uncapturable;
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

    // ------------------------------------------------------------------ ending

    @Override
    public Future<Void> end(Buffer chunk) {
        checkNotEnded();
        // Before the end is marked: these handlers may still change the status and headers.
        runHeadersEndHandler();
        Finisher f;
        synchronized (this) {
            checkNotEnded();
            endRequested = true;
            f = finisher;
        }
        return f == null ? delegate.end(chunk) : f.ended(chunk, () -> delegate.end(chunk));
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
        uncapturable("streamed with send(ReadStream)");
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
        Finisher f = finisher();
        if (f == null) {
            return send.get();
        }
        uncapturable("sendFile");
        return f.ended(Buffer.buffer(), send);
    }

    @Override
    public Future<Void> reset(long code) {
        Finisher f = finisher();
        if (f != null) {
            f.reset();
        }
        return delegate.reset(code);
    }

    // ------------------------------------------------------------------ writing

    @Override
    public Future<Void> write(Buffer data) {
        checkNotEnded();
        runHeadersEndHandler();
        append(data);
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
        checkHeadNotSent();
        runHeadersEndHandler();
        return delegate.writeHead();
    }

    /** A writer that watches back-pressure streams its body: such a body is not stored. */
    @Override
    public boolean writeQueueFull() {
        uncapturable("streamed (writeQueueFull)");
        return delegate.writeQueueFull();
    }

    @Override
    public HttpServerResponse drainHandler(Handler<Void> handler) {
        if (handler != null) {
            uncapturable("streamed (drainHandler)");
        }
        return super.drainHandler(handler);
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
        return super.headersEndHandler(handler == null ? null : v -> runHeadersEndHandler());
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

    private synchronized void checkHeadNotSent() {
        if (endRequested) {
            throw new IllegalStateException(HEAD_SENT);
        }
    }

    // ------------------------------------------------------------------ state: an end on its way counts

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

    // ------------------------------------------------------------------ the head may not change once the end is requested

    @Override
    public HttpServerResponse setStatusCode(int statusCode) {
        checkHeadNotSent();
        return super.setStatusCode(statusCode);
    }

    @Override
    public HttpServerResponse setStatusMessage(String statusMessage) {
        checkHeadNotSent();
        return super.setStatusMessage(statusMessage);
    }

    @Override
    public HttpServerResponse setChunked(boolean chunked) {
        checkHeadNotSent();
        return super.setChunked(chunked);
    }

    @Override
    public HttpServerResponse putHeader(String name, String value) {
        checkHeadNotSent();
        return super.putHeader(name, value);
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, CharSequence value) {
        checkHeadNotSent();
        return super.putHeader(name, value);
    }

    @Override
    public HttpServerResponse putHeader(String name, Iterable<String> values) {
        checkHeadNotSent();
        return super.putHeader(name, values);
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, Iterable<CharSequence> values) {
        checkHeadNotSent();
        return super.putHeader(name, values);
    }

    @Override
    public HttpServerResponse addCookie(Cookie cookie) {
        checkHeadNotSent();
        return super.addCookie(cookie);
    }
}
