package dev.idempotency.spring;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.framework.servlet.ServletResponses;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.web.filter.ShallowEtagHeaderFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Holds a response's body, so that its exact bytes can be stored before the client sees any of
 * them — unless the handler streams it. A response is streamed once Spring MVC marks the request
 * as streaming (SSE, {@code ResponseBodyEmitter}, {@code StreamingResponseBody}: the mark its own
 * {@link ShallowEtagHeaderFilter} honours), or once it is written or flushed while the request is
 * asynchronous (by another thread, not by an asynchronous dispatch); from then on its bytes pass
 * through to the client as they are written, and it is not captured.
 */
final class CapturingResponse extends ContentCachingResponseWrapper {

    /** Set by {@link ShallowEtagHeaderFilter#disableContentCaching}; the name is Spring's own. */
    private static final String STREAMING = ShallowEtagHeaderFilter.class.getName() + ".STREAMING";

    private final HttpServletRequest request;
    private volatile boolean streamed;

    CapturingResponse(HttpServletResponse response, HttpServletRequest request) {
        super(response);
        this.request = request;
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        return streaming() ? passThrough().getOutputStream() : super.getOutputStream();
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        return streaming() ? passThrough().getWriter() : super.getWriter();
    }

    /** A flush by Spring MVC's own writers is ignored (the body is still held); a streamer's is sent. */
    @Override
    public void flushBuffer() throws IOException {
        if (streaming()) {
            passThrough().flushBuffer();
        }
    }

    /** What the engine is given: the held bytes, or, streamed, the status and headers only. */
    CapturedResponse capturedResponse() {
        Map<String, List<String>> headers = ServletResponses.headersOf(this);
        return streamed ? CapturedResponse.uncaptured(getStatus(), headers)
                : CapturedResponse.of(getStatus(), headers, getContentAsByteArray());
    }

    /**
     * Sends what is held — or, when the engine answers {@code instead} and nothing has gone out yet,
     * the engine's reply, dropping the handler's body and headers.
     */
    void send(Optional<HttpReply> instead) throws IOException {
        HttpServletResponse raw = (HttpServletResponse) getResponse();
        if (instead.isPresent() && !raw.isCommitted()) {
            reset();
            ServletResponses.write(instead.get(), raw);
        } else {
            copyBodyToResponse();
        }
    }

    private boolean streaming() {
        return streamed || request.getAttribute(STREAMING) != null || request.isAsyncStarted();
    }

    /** Sends what is held so far; every later byte goes straight through. */
    private HttpServletResponse passThrough() throws IOException {
        streamed = true;
        copyBodyToResponse(false);
        return (HttpServletResponse) getResponse();
    }
}
