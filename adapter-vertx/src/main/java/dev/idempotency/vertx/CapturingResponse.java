package dev.idempotency.vertx;

import dev.idempotency.core.adapter.CapturedResponse;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
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
 * through; once armed it keeps the body a handler ends the response with (up to a limit), and
 * hands the end to its {@link Finisher} instead of the server, which lets it go once the execution
 * is finished. A body written in parts — chunks, a pipe, a file — streams to the client as it is
 * written and is not kept; its end is the end of the stream ({@code end()}, the file sent). What
 * breaks a response on its way — a reset, a file or {@code send(ReadStream)} source that fails, the
 * connection closing before the end — goes to the finisher too.
 *
 * <p>What the capture guarantees the finisher: one end at most (a second throws, as Vert.x does);
 * once the end is requested the head is treated as sent, so nobody can change the status or
 * headers the finisher reads; and the response's {@code headersEndHandler} has run before the
 * copy is taken.
 */
final class CapturingResponse extends ForwardingResponse {

    private static final String RESPONSE_WRITTEN = "Response has already been written";
    private static final String HEAD_SENT = "Response head already sent";

    /** Where an armed response's ends go: {@link Completion}. */
    interface Finisher {
        /**
         * The response is complete ({@code last} is its final chunk, empty when already sent): finish
         * the execution, then send the engine's replacement reply or {@code deliver} the response.
         */
        Future<Void> ended(Buffer last, Supplier<Future<Void>> deliver);

        /**
         * The response broke (reset, a source that failed, a file not sent): it is no success. The
         * future completes once the engine has been told — or has been told otherwise already.
         */
        Future<Void> failed(Throwable cause);

        /** The connection closed before the end; {@code streamed} when part of the body had gone out. */
        void closed(boolean streamed);
    }

    private final Context context;

    // Guarded by this. Handlers may write from worker threads (blocking handlers), so the fields
    // that several threads can see are read and written under the lock.
    private Finisher finisher;
    private int limit;
    private String streamed; // why the body is not kept, once it streams; null while it is
    private boolean endRequested;
    private Handler<Void> headersEndHandler;
    private Handler<Void> closeHandler;

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

    /** From now on, keep an ended body of up to {@code limit} bytes and hand the end to {@code finisher}. */
    void arm(int limit, Finisher finisher) {
        synchronized (this) {
            if (this.finisher != null) {
                throw new IllegalStateException("Response already guarded");
            }
            if (endRequested) {
                throw new IllegalStateException(RESPONSE_WRITTEN);
            }
            this.finisher = finisher;
            this.limit = limit;
        }
        // Outside the lock: the server calls back into this object while holding its own.
        delegate.closeHandler(this::handleClosed);
    }

    private synchronized Finisher finisher() {
        return finisher;
    }

    // ------------------------------------------------------------------ the capture

    /** From now on the body streams: it is not kept. */
    private synchronized void streamed(String how) {
        if (finisher != null && streamed == null) {
            streamed = how;
        }
    }

    /**
     * What was written: the status and headers as set now, and {@code last} as the body — or no
     * body ({@link CapturedResponse#uncaptured}) when it streamed or is over the limit (never copied).
     */
    CapturedResponse captured(Buffer last) {
        Map<String, List<String>> headers = headersOf(delegate.headers());
        int status = delegate.getStatusCode();
        synchronized (this) {
            if (streamed == null && last.length() > limit) {
                streamed = "larger than maxStoredBodyBytes";
            }
            return streamed != null ? CapturedResponse.uncaptured(status, headers)
                    : CapturedResponse.of(status, headers, last.getBytes());
        }
    }

    /** Why the body was not kept; null while it is. */
    synchronized String uncapturedReason() {
        return streamed;
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

    /**
     * Piped through this response, as Vert.x does — except that a source that fails is reported
     * before the response is ended (Vert.x's pipe ends it as if it were whole).
     */
    @Override
    public Future<Void> send(ReadStream<Buffer> body) {
        streamed("streamed with send(ReadStream)");
        if (!headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            setChunked(true);
        }
        return body.pipe().endOnFailure(false).to(this).recover(failure -> {
            failed(failure);
            Future<Void> ended = ended() ? Future.succeededFuture() : end(); // goes out once the key is released
            return ended.transform(ar -> Future.failedFuture(failure));
        });
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

    /**
     * A file streams, and is not kept: it ends when the server has sent it, and a file that could
     * not be sent is a failure (the handler may then answer otherwise: the end is no longer taken).
     */
    private Future<Void> sendFile(Supplier<Future<Void>> send) {
        checkNotEnded();
        runHeadersEndHandler();
        Finisher f;
        synchronized (this) {
            checkNotEnded();
            f = finisher;
            if (f != null) {
                streamed("sendFile");
                endRequested = true;
            }
        }
        if (f == null) {
            return send.get();
        }
        Future<Void> sent;
        try {
            sent = send.get();
        } catch (RuntimeException e) {
            notSent(f, e);
            throw e;
        }
        return sent.transform(ar -> {
            if (ar.succeeded()) {
                return f.ended(Buffer.buffer(), Future::succeededFuture);
            }
            notSent(f, ar.cause());
            return Future.failedFuture(ar.cause());
        });
    }

    private void notSent(Finisher f, Throwable cause) {
        f.failed(cause);
        synchronized (this) {
            endRequested = false;
        }
    }

    @Override
    public Future<Void> reset(long code) {
        failed(new IllegalStateException("the response was reset"));
        return delegate.reset(code);
    }

    private void failed(Throwable cause) {
        Finisher f = finisher();
        if (f != null) {
            f.failed(cause);
        }
    }

    /** The server's close handler once armed: tells the finisher of a close before the end, then the handler's own. */
    private void handleClosed(Void v) {
        Finisher f;
        boolean wasStreamed;
        Handler<Void> handler;
        synchronized (this) {
            f = endRequested ? null : finisher;
            wasStreamed = streamed != null;
            handler = closeHandler;
        }
        if (f != null) {
            f.closed(wasStreamed);
        }
        if (handler != null) {
            handler.handle(v);
        }
    }

    /** Kept, and called by this response's own close handler once armed (Vert.x Web sets one for its end handlers). */
    @Override
    public HttpServerResponse closeHandler(Handler<Void> handler) {
        synchronized (this) {
            closeHandler = handler;
            if (finisher != null) {
                return this;
            }
        }
        return super.closeHandler(handler);
    }

    // ------------------------------------------------------------------ writing

    /** A body written in parts streams to the client as it goes: it is not kept. */
    @Override
    public Future<Void> write(Buffer data) {
        checkNotEnded();
        runHeadersEndHandler();
        streamed("written in parts");
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

    /** The head may not change once the end is requested. */
    @Override
    protected void beforeHeadChange() {
        checkHeadNotSent();
    }
}
