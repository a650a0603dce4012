package dev.idempotency.javalin;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.framework.internal.Exchange;
import dev.idempotency.framework.servlet.BufferedBodyRequest;
import dev.idempotency.framework.servlet.ServletResponses;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;

/**
 * The servlet-level part of the plugin, for what Javalin's handlers cannot see: it keeps the
 * request body re-readable once the engine has read it, notices responses written directly to
 * the output stream (which cannot be captured), and, once a response has been sent, finishes an
 * execution the after handler left open (a stream result, which Javalin writes after it) or never
 * saw (an endpoint that skipped it). Only requests whose method the engine covers are wrapped.
 */
final class IdempotencyFilter implements Filter {

    private static final String KEEP_BODY = IdempotencyFilter.class.getName() + ".keepBody";
    private static final String RESPONSE = IdempotencyFilter.class.getName() + ".response";

    private final IdempotencyConfig config;

    IdempotencyFilter(IdempotencyConfig config) {
        this.config = config;
    }

    /** Asks the filter to buffer the body on its first read (the engine is about to read it). */
    static void keepBodyReadable(ServletRequest request) {
        request.setAttribute(KEEP_BODY, Boolean.TRUE);
    }

    /** Whether the filter wraps this request, and so finishes its execution once the response is sent. */
    static boolean finishesWhenSent(ServletRequest request) {
        return request.getAttribute(RESPONSE) instanceof TrackingResponse;
    }

    /**
     * Whether the response may have been written past Javalin's result: directly to the output
     * stream or writer, or committed. Without the filter in place only a commit is visible.
     */
    static boolean wroteDirectly(ServletRequest request, HttpServletResponse response) {
        return request.getAttribute(RESPONSE) instanceof TrackingResponse tracking
                ? tracking.touched || response.isCommitted()
                : response.isCommitted();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest httpReq) || !(res instanceof HttpServletResponse httpRes)
                || !config.covers(effectiveMethod(httpReq))) {
            chain.doFilter(req, res);
            return;
        }
        BufferingRequest request = new BufferingRequest(httpReq, httpRes, config.maxRequestBodyBytes());
        TrackingResponse response = new TrackingResponse(httpRes);
        httpReq.setAttribute(RESPONSE, response);
        try {
            chain.doFilter(request, response);
        } finally {
            // An asynchronous request (ctx.future) is settled by its listener, registered as it started.
            if (!httpReq.isAsyncStarted()) {
                finishIfOpen(httpReq, httpRes);
            }
        }
    }

    /** The method Javalin routes on, which honours {@code X-HTTP-Method-Override}. */
    private static String effectiveMethod(HttpServletRequest request) {
        String override = request.getHeader("X-HTTP-Method-Override");
        return override != null ? override : request.getMethod();
    }

    /**
     * The response has been sent: an execution still open had a stream result, or its after
     * handler did not run; either way its body was not captured. A no-op when the after handler
     * finished it.
     */
    private static void finishIfOpen(HttpServletRequest request, HttpServletResponse response) {
        Exchange exchange = IdempotencyHooks.exchangeOf(request);
        if (exchange != null) {
            exchange.finish(CapturedResponse.uncaptured(response.getStatus(), ServletResponses.headersOf(response)))
                    .join();
        }
    }

    /**
     * The end of an asynchronous request ({@code ctx.future}), registered before Javalin's own
     * listeners so that it decides first. Javalin completes the request once the endpoint's future is
     * done and the response written: then the after handler has finished the execution, or this does.
     * On a timeout ({@code cfg.http.asyncTimeout}) or a container error (the client went away),
     * Javalin answers without the endpoint's result while its future may still run: the key is
     * abandoned, in flight until its lease ends, never released.
     */
    private static final class SettleWhenDone implements AsyncListener {
        private final HttpServletRequest request;
        private final HttpServletResponse response;

        SettleWhenDone(HttpServletRequest request, HttpServletResponse response) {
            this.request = request;
            this.response = response;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            finishIfOpen(request, response);
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            abandon();
        }

        @Override
        public void onError(AsyncEvent event) {
            abandon();
        }

        private void abandon() {
            Exchange exchange = IdempotencyHooks.exchangeOf(request);
            if (exchange != null) {
                exchange.abandon();
            }
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }

    /** Keeps the body from its first read on, once {@link #keepBodyReadable} was called. */
    private static final class BufferingRequest extends BufferedBodyRequest {
        private final HttpServletResponse response;

        BufferingRequest(HttpServletRequest request, HttpServletResponse response, int limit) {
            super(request, limit);
            this.response = response;
        }

        /** Javalin starts a {@code ctx.future}'s asynchronous request here: the listener goes first. */
        @Override
        public AsyncContext startAsync() {
            AsyncContext async = super.startAsync();
            async.addListener(new SettleWhenDone((HttpServletRequest) getRequest(), response));
            return async;
        }

        @Override
        protected boolean keepsBodyOnRead() {
            return getAttribute(KEEP_BODY) != null;
        }
    }

    /** Notes whether anything but Javalin's final result write reached the response. */
    private static final class TrackingResponse extends HttpServletResponseWrapper {
        private volatile boolean touched;

        TrackingResponse(HttpServletResponse response) {
            super(response);
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            touched = true;
            return super.getOutputStream();
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            touched = true;
            return super.getWriter();
        }

        @Override
        public void sendError(int sc, String msg) throws IOException {
            touched = true;
            super.sendError(sc, msg);
        }

        @Override
        public void sendError(int sc) throws IOException {
            touched = true;
            super.sendError(sc);
        }

        @Override
        public void sendRedirect(String location) throws IOException {
            touched = true;
            super.sendRedirect(location);
        }

        @Override
        public void flushBuffer() throws IOException {
            touched = true;
            super.flushBuffer();
        }
    }
}
