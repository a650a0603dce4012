package dev.idempotency.vertx;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpFrame;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.StreamPriority;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.streams.ReadStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.util.Set;

/**
 * An {@link HttpServerResponse} that hands every abstract method to {@link #delegate}, calling
 * {@link #beforeHeadChange} before each that changes the head, and nothing more. Fluent methods
 * return this wrapper, never the delegate, so a chain such as {@code response.putHeader(..).end(..)}
 * stays on the wrapper. The interface's default methods
 * ({@code send(Buffer)}, {@code sendFile(String)}, …) are not overridden: they call back into this
 * object, so a subclass sees them too.
 */
abstract class ForwardingResponse implements HttpServerResponse {

    protected final HttpServerResponse delegate;

    ForwardingResponse(HttpServerResponse delegate) {
        this.delegate = delegate;
    }

    /** Called before the status, a header or a cookie is set; may throw to refuse. Does nothing here. */
    protected void beforeHeadChange() {
    }

    // ------------------------------------------------------------------ body

    @Override
    public Future<Void> write(Buffer data) {
        return delegate.write(data);
    }

    @Override
    public Future<Void> write(String chunk, String enc) {
        return delegate.write(chunk, enc);
    }

    @Override
    public Future<Void> write(String chunk) {
        return delegate.write(chunk);
    }

    @Override
    public Future<Void> end(Buffer chunk) {
        return delegate.end(chunk);
    }

    @Override
    public Future<Void> end(String chunk) {
        return delegate.end(chunk);
    }

    @Override
    public Future<Void> end(String chunk, String enc) {
        return delegate.end(chunk, enc);
    }

    @Override
    public Future<Void> end() {
        return delegate.end();
    }

    @Override
    public Future<Void> send(ReadStream<Buffer> body) {
        return delegate.send(body);
    }

    @Override
    public Future<Void> sendFile(String filename, long offset, long length) {
        return delegate.sendFile(filename, offset, length);
    }

    @Override
    public Future<Void> sendFile(FileChannel channel, long offset, long length) {
        return delegate.sendFile(channel, offset, length);
    }

    @Override
    public Future<Void> sendFile(RandomAccessFile file, long offset, long length) {
        return delegate.sendFile(file, offset, length);
    }

    @Override
    public Future<Void> reset(long code) {
        return delegate.reset(code);
    }

    @Override
    public Future<Void> writeHead() {
        return delegate.writeHead();
    }

    @Override
    public boolean writeQueueFull() {
        return delegate.writeQueueFull();
    }

    @Override
    public HttpServerResponse drainHandler(Handler<Void> handler) {
        delegate.drainHandler(handler);
        return this;
    }

    @Override
    public HttpServerResponse headersEndHandler(Handler<Void> handler) {
        delegate.headersEndHandler(handler);
        return this;
    }

    // ------------------------------------------------------------------ state

    @Override
    public boolean ended() {
        return delegate.ended();
    }

    @Override
    public boolean headWritten() {
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
        beforeHeadChange();
        delegate.setStatusCode(statusCode);
        return this;
    }

    @Override
    public String getStatusMessage() {
        return delegate.getStatusMessage();
    }

    @Override
    public HttpServerResponse setStatusMessage(String statusMessage) {
        beforeHeadChange();
        delegate.setStatusMessage(statusMessage);
        return this;
    }

    @Override
    public HttpServerResponse setChunked(boolean chunked) {
        beforeHeadChange();
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
        beforeHeadChange();
        delegate.putHeader(name, value);
        return this;
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, CharSequence value) {
        beforeHeadChange();
        delegate.putHeader(name, value);
        return this;
    }

    @Override
    public HttpServerResponse putHeader(String name, Iterable<String> values) {
        beforeHeadChange();
        delegate.putHeader(name, values);
        return this;
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, Iterable<CharSequence> values) {
        beforeHeadChange();
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
        beforeHeadChange();
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

    // ------------------------------------------------------------------ handlers and HTTP/2

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
