package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.Execution;
import java.util.Optional;
import org.springframework.web.server.ServerWebExchange;

/** What a handler may ask about the idempotency of the exchange it serves. */
public final class IdempotentExchanges {

    /** The exchange attribute holding the running {@link Execution} while the handler runs. */
    static final String EXECUTION = IdempotentExchanges.class.getName() + ".execution";

    private IdempotentExchanges() {
    }

    /**
     * The execution the exchange runs under, when the filter let it through to the handler under a
     * key; empty for exchanges it passed through, answered, or does not cover.
     */
    public static Optional<Execution> execution(ServerWebExchange exchange) {
        return exchange.getAttribute(EXECUTION) instanceof Execution execution ? Optional.of(execution) : Optional.empty();
    }
}
