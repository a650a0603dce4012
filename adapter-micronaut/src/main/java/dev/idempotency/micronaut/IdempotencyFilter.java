package dev.idempotency.micronaut;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestPaths;
import dev.idempotency.framework.internal.Exchange;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.ConversionService;
import io.micronaut.core.order.Ordered;
import io.micronaut.core.util.PathMatcher;
import io.micronaut.core.util.StringUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.body.MessageBodyHandlerRegistry;
import io.micronaut.http.filter.ConditionalFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.web.router.RouteAttributes;
import jakarta.inject.Named;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates Micronaut's filter hooks into the engine's two steps: {@link IdempotencyEngine#before}
 * when the request arrives, {@link Exchange#finish} or {@link Exchange#fail} (the controller threw
 * and no error handler answered with a 2xx) when the response is complete. Micronaut runs the
 * response filter once a {@code CompletableFuture} or single-value {@code Publisher} has its result,
 * so such a response is finished there, before it is encoded for the client; a streamed body is
 * finished when it has been sent ({@link StreamedResponses}).
 *
 * <p>Both steps may touch the store, so both run on the blocking executor, never on a Netty event
 * loop ({@link ExecuteOn}). A request that goes ahead therefore reaches its controller on that
 * executor too.
 *
 * <p>The body is bound as {@code @Body byte[]}, which the server serves from a copy of the body:
 * the controller's own {@code @Body} binding is unaffected.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
@Requires(property = IdempotencyProperties.PREFIX + ".enabled", value = StringUtils.TRUE)
final class IdempotencyFilter implements ConditionalFilter, Ordered {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);

    private final IdempotencyEngine engine;
    private final List<String> paths;
    private final int order;
    private final ResponseCapture capture;
    private final StreamedResponses streams;

    IdempotencyFilter(IdempotencyEngine engine, IdempotencyProperties properties, MessageBodyHandlerRegistry writers,
                      ConversionService conversions, @Named(TaskExecutors.BLOCKING) ExecutorService blocking) {
        this.engine = engine;
        this.paths = List.copyOf(properties.getPaths());
        this.order = properties.getOrder();
        this.capture = new ResponseCapture(writers);
        this.streams = new StreamedResponses(conversions, blocking);
    }

    /**
     * Only requests in scope pay for the body copy and the executor hop. The patterns are matched
     * against the path the record is filed under ({@link RequestPaths#normalize} of the path the
     * router matches), so {@code POST /orders/} — which Micronaut routes to {@code /orders} — is
     * covered wherever {@code /orders} is. A path that names no record ({@code /orders/.}, a
     * fragment, a malformed escape) is matched as it came, up to any fragment or query, and, when
     * covered, handed to the engine, which refuses it under a key.
     */
    @Override
    public boolean isEnabled(HttpRequest<?> request) {
        if (!engine.config().covers(request.getMethodName())) {
            return false;
        }
        String routed = MicronautRequestView.routedPath(request);
        String path = RequestPaths.normalize(routed).orElseGet(() -> upToQueryOrFragment(routed));
        for (String pattern : paths) {
            if (PathMatcher.ANT.matches(pattern, path)) {
                return true;
            }
        }
        return false;
    }

    private static String upToQueryOrFragment(String path) {
        int end = path.length();
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) == '?' || path.charAt(i) == '#') {
                end = i;
                break;
            }
        }
        return path.substring(0, end);
    }

    @Override
    public int getOrder() {
        return order;
    }

    @RequestFilter
    @ExecuteOn(TaskExecutors.BLOCKING)
    @Nullable
    HttpResponse<?> before(HttpRequest<?> request, @Body @Nullable byte[] body) {
        Decision decision = engine.before(new MicronautRequestView(request, body));
        if (decision instanceof Decision.Respond respond) {
            return Replies.toResponse(respond.reply());
        }
        if (decision instanceof Decision.Proceed proceed) {
            request.setAttribute(IdempotentRequests.EXCHANGE, new Exchange(engine, proceed.execution()));
        }
        return null;
    }

    @ResponseFilter
    @ExecuteOn(TaskExecutors.BLOCKING)
    @Nullable
    MutableHttpResponse<?> after(HttpRequest<?> request, MutableHttpResponse<?> response) {
        // Should this filter see the request twice, the exchange makes the second a no-op.
        Exchange exchange = IdempotentRequests.exchange(request).orElse(null);
        if (exchange == null) {
            return null;
        }
        Optional<Throwable> failure = RouteAttributes.getException(response);
        if (failure.isPresent() && (response.code() < 200 || response.code() >= 300)) {
            // The error handler already made the response the client gets; nothing of it is stored.
            exchange.fail(failure.get()).join();
            return null;
        }
        // An error handler's 2xx (an exception mapped to a success) is what the client saw: stored like any 2xx.
        if (streams.holdUntilSent(request, response, exchange)) {
            return null;
        }
        CapturedResponse captured;
        try {
            captured = capture.capture(request, response);
        } catch (RuntimeException e) {
            // The server would fail to encode it as well; let it answer its usual error.
            log.debug("Could not encode the response for key_preview={}", exchange.execution().key().keyPreview(), e);
            exchange.fail(e).join();
            return null;
        }
        return exchange.finish(captured).join().map(Replies::toResponse).orElse(null);
    }
}
