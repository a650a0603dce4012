package dev.idempotency.spring;

import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.Callable;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.CallableProcessingInterceptor;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.DeferredResultProcessingInterceptor;
import org.springframework.web.context.request.async.WebAsyncManager;
import org.springframework.web.context.request.async.WebAsyncUtils;

/**
 * Refuses an asynchronous handler while the atomic mode's transaction is joined: its work would
 * run on another thread, outside the transaction bound to the request's, and commit on its own.
 * It stops Spring MVC's asynchronous processing before it starts — a {@code Callable},
 * {@code WebAsyncTask} or {@code StreamingResponseBody} never runs; a {@code DeferredResult},
 * {@code CompletableFuture} or emitter is not waited for (what the controller already started on
 * other threads goes on) — and the filter answers with a problem of its own.
 */
final class AtomicAsyncRefusal implements CallableProcessingInterceptor, DeferredResultProcessingInterceptor {

    private volatile boolean refused;

    /** Registers a refusal with the request's {@link WebAsyncManager}. */
    static AtomicAsyncRefusal register(HttpServletRequest request) {
        AtomicAsyncRefusal refusal = new AtomicAsyncRefusal();
        WebAsyncManager async = WebAsyncUtils.getAsyncManager(request);
        async.registerCallableInterceptor(AtomicAsyncRefusal.class.getName(), refusal);
        async.registerDeferredResultInterceptor(AtomicAsyncRefusal.class.getName(), refusal);
        return refusal;
    }

    /** Whether the handler tried to go asynchronous, and was stopped. */
    boolean refused() {
        return refused;
    }

    @Override
    public <T> void beforeConcurrentHandling(NativeWebRequest request, Callable<T> task) {
        refuse();
    }

    @Override
    public <T> void beforeConcurrentHandling(NativeWebRequest request, DeferredResult<T> deferredResult) {
        refuse();
    }

    private void refuse() {
        refused = true;
        throw new IllegalStateException("An asynchronous handler cannot run inside the atomic mode's transaction");
    }
}
