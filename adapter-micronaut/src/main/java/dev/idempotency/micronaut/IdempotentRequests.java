package dev.idempotency.micronaut;

import dev.idempotency.core.adapter.Execution;
import dev.idempotency.framework.internal.Exchange;
import io.micronaut.http.HttpRequest;
import java.util.Optional;

/** What a controller may ask about the idempotency of the request it serves. */
public final class IdempotentRequests {

    /** The request attribute holding the running {@link Exchange} between the filter's two steps. */
    static final String EXCHANGE = IdempotentRequests.class.getName() + ".exchange";

    private IdempotentRequests() {
    }

    /**
     * The execution the current request runs under, when the filter let it through to the
     * controller under a key; empty for requests it passed through, answered, or does not cover.
     * In the atomic mode {@code execution.unwrap(...)} gives the controller the transaction to
     * write in.
     */
    public static Optional<Execution> execution(HttpRequest<?> request) {
        return exchange(request).map(Exchange::execution);
    }

    static Optional<Exchange> exchange(HttpRequest<?> request) {
        return request.getAttribute(EXCHANGE, Exchange.class);
    }
}
