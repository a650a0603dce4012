package dev.idempotency.spring;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.framework.internal.Exchange;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;
import org.springframework.web.context.request.async.WebAsyncManager;
import org.springframework.web.context.request.async.WebAsyncUtils;

/**
 * Spring MVC's signals for an {@link Exchange} whose handler went asynchronous: its key stays
 * reserved (and its lease renewed) until the response is complete. Normally decided on Spring MVC's
 * last asynchronous dispatch, while a held response can still be stored before it is sent or replaced
 * ({@link Exchange#handled}); abandoned on a timeout or a container error such as a lost client (the
 * handler's work may still run); and, should the request complete without such a dispatch, finished
 * with what the response was.
 */
final class AsyncCompletion implements AsyncListener {

    private static final Logger log = LoggerFactory.getLogger(AsyncCompletion.class);
    private static final String ATTRIBUTE = AsyncCompletion.class.getName();

    private final Exchange exchange;
    private final CapturingResponse response;

    private AsyncCompletion(Exchange exchange, CapturingResponse response) {
        this.exchange = exchange;
        this.response = response;
    }

    /** Called on the request's first dispatch once it went asynchronous: the exchange is decided later. */
    static void await(HttpServletRequest request, Exchange exchange, CapturingResponse response) {
        AsyncCompletion completion = new AsyncCompletion(exchange, response);
        request.setAttribute(ATTRIBUTE, completion);
        request.getAsyncContext().addListener(completion);
    }

    /** The completion awaited by an asynchronous dispatch of {@code request}, if the filter let it through. */
    static AsyncCompletion of(HttpServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof AsyncCompletion completion ? completion : null;
    }

    /** Runs an asynchronous dispatch (Spring MVC writing the handler's result), then decides if it was the last. */
    void dispatch(HttpServletRequest request, HttpServletResponse dispatched, FilterChain chain)
            throws IOException, ServletException {
        WebAsyncManager async = WebAsyncUtils.getAsyncManager(request);
        Object result = async.hasConcurrentResult() ? async.getConcurrentResult() : null; // cleared by the chain
        try {
            chain.doFilter(request, dispatched);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            exchange.fail(e).join();
            throw e;
        }
        if (request.isAsyncStarted()) {
            return; // asynchronous again: a later dispatch, or the listener, ends it
        }
        if (result instanceof AsyncRequestTimeoutException) {
            exchange.abandon();
            response.copyBodyToResponse();
        } else {
            response.send(exchange.handled(response.capturedResponse(),
                    result instanceof Throwable failure ? failure : null).join());
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        exchange.abandon();
    }

    /** The container's error (an I/O failure: the client went away), not the handler's: it may still run. */
    @Override
    public void onError(AsyncEvent event) {
        exchange.abandon();
    }

    /** A safety net: with no final dispatch through the filter, the response is what was sent. */
    @Override
    public void onComplete(AsyncEvent event) {
        if (!exchange.decided()) {
            log.debug("Asynchronous request for key_preview={} completed without a final dispatch",
                    exchange.execution().key().keyPreview());
            exchange.finish(CapturedResponse.uncaptured(response.getStatus(), response.capturedResponse().headers()))
                    .join();
        }
    }

    /** Started again by a later dispatch: the container drops its listeners then, so this one registers again. */
    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
