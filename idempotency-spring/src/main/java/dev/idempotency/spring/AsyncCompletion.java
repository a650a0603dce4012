package dev.idempotency.spring;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Execution;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;
import org.springframework.web.context.request.async.WebAsyncManager;
import org.springframework.web.context.request.async.WebAsyncUtils;

/**
 * The end of an execution whose handler went asynchronous: its key stays reserved (and its lease
 * renewed) until the response is complete, then the execution is settled exactly once. Normally on
 * Spring MVC's last asynchronous dispatch, while a held response can still be stored before it is
 * sent or replaced (an exception an {@code @ExceptionHandler} answered with a 2xx included); failed
 * when the handler's result is an exception answered otherwise; abandoned on a timeout or a
 * container error such as a lost client (the handler's work may still run: the key stays in flight
 * until its lease ends); and, should the request complete without such a dispatch, finished with
 * what the response was.
 */
final class AsyncCompletion implements AsyncListener {

    private static final Logger log = LoggerFactory.getLogger(AsyncCompletion.class);
    private static final String ATTRIBUTE = AsyncCompletion.class.getName();

    private final Execution execution;
    private final CapturingResponse response;
    private final AtomicBoolean settled = new AtomicBoolean();

    private AsyncCompletion(Execution execution, CapturingResponse response) {
        this.execution = execution;
        this.response = response;
    }

    /** Called on the request's first dispatch once it went asynchronous: the execution is settled later. */
    static void await(HttpServletRequest request, Execution execution, CapturingResponse response) {
        AsyncCompletion completion = new AsyncCompletion(execution, response);
        request.setAttribute(ATTRIBUTE, completion);
        request.getAsyncContext().addListener(completion);
    }

    /** The completion awaited by an asynchronous dispatch of {@code request}, if the filter let it through. */
    static AsyncCompletion of(HttpServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof AsyncCompletion completion ? completion : null;
    }

    /** Runs an asynchronous dispatch (Spring MVC writing the handler's result), then settles if it was the last. */
    void dispatch(HttpServletRequest request, HttpServletResponse dispatched, FilterChain chain)
            throws IOException, ServletException {
        WebAsyncManager async = WebAsyncUtils.getAsyncManager(request);
        Object result = async.hasConcurrentResult() ? async.getConcurrentResult() : null; // cleared by the chain
        try {
            chain.doFilter(request, dispatched);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            fail(e);
            throw e;
        }
        if (request.isAsyncStarted()) {
            return; // asynchronous again: a later dispatch, or the listener, ends it
        }
        if (result instanceof AsyncRequestTimeoutException) {
            abandon();
            response.copyBodyToResponse();
        } else if (result instanceof Throwable failure && !successful(response.getStatus())) {
            fail(failure); // no exception handler answered it with a 2xx: the handler did not succeed
            response.copyBodyToResponse();
        } else if (settled.compareAndSet(false, true)) { // a 2xx, an exception handler's included, is stored
            IdempotencyFilter.finishAndSend(execution, response);
        } else {
            response.copyBodyToResponse();
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        abandon();
    }

    /** The container's error (an I/O failure: the client went away), not the handler's: it may still run. */
    @Override
    public void onError(AsyncEvent event) {
        abandon();
    }

    /** A safety net: with no final dispatch through the filter, the response is what was sent. */
    @Override
    public void onComplete(AsyncEvent event) {
        if (settled.compareAndSet(false, true)) {
            log.debug("Asynchronous request for key_preview={} completed without a final dispatch",
                    execution.key().keyPreview());
            execution.finish(CapturedResponse.uncaptured(response.getStatus(), response.capturedResponse().headers()));
        }
    }

    /** Started again by a later dispatch: the container drops its listeners then, so this one registers again. */
    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }

    private static boolean successful(int status) {
        return status >= 200 && status < 300;
    }

    private void abandon() {
        if (settled.compareAndSet(false, true)) {
            execution.abandonAsync();
        }
    }

    private void fail(Throwable cause) {
        if (settled.compareAndSet(false, true)) {
            execution.fail(cause);
        }
    }
}
