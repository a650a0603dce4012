package dev.idempotency.examples.webflux;

import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import dev.idempotency.spring.webflux.IdempotentExchanges;
import io.r2dbc.spi.Connection;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The service's routes, an annotated WebFlux controller returning {@link Mono}s. Bodies are read
 * as bytes and checked by the shared rules ({@link ExampleRequests}), so every framework's example
 * accepts and refuses the same requests; a refusal is a {@link ProblemException}, answered by
 * {@link ProblemAdvice}. {@code delayMs} is waited on a timer: before the write, or after it
 * inside the atomic mode's transaction ({@link JoinedWrites}).
 */
@RestController
class ShopController {

    private final Shop shop;
    private final Optional<JoinedWrites> joined;

    ShopController(Shop shop, Optional<JoinedWrites> joined) {
        this.shop = shop;
        this.joined = joined;
    }

    @PostMapping("/orders")
    Mono<ResponseEntity<Order>> createOrder(@RequestBody(required = false) byte[] body,
                                            @RequestParam(required = false) String delayMs, ServerWebExchange exchange) {
        NewOrder order = ExampleRequests.order(body);
        Duration delay = Duration.ofMillis(ExampleRequests.delayMillis(delayMs));
        String tenant = tenant(exchange.getRequest());
        Mono<Order> created = joined(exchange)
                .map(writes -> writes.createOrder(tenant, order, delay))
                .orElseGet(() -> (delay.isZero() ? Mono.<Long>empty() : Mono.delay(delay))
                        .then(shop.createOrder(tenant, order)));
        return created.map(o -> ResponseEntity.created(URI.create("/orders/" + o.id())).body(o));
    }

    @GetMapping("/orders")
    Mono<List<Order>> orders(ServerHttpRequest request) {
        return shop.orders(tenant(request));
    }

    @GetMapping("/orders/{id}")
    Mono<Order> order(@PathVariable String id, ServerHttpRequest request) {
        long orderId = ExampleRequests.id(id).orElseThrow(() -> ProblemException.notFound("No order " + id));
        return shop.order(tenant(request), orderId)
                .switchIfEmpty(Mono.error(() -> ProblemException.notFound("No order " + id)));
    }

    @PostMapping("/payments")
    Mono<Payment> createPayment(@RequestBody(required = false) byte[] body, ServerWebExchange exchange) {
        NewPayment payment = ExampleRequests.payment(body);
        String tenant = tenant(exchange.getRequest());
        return joined(exchange).map(writes -> writes.createPayment(tenant, payment))
                .orElseGet(() -> shop.createPayment(tenant, payment));
    }

    @GetMapping("/payments")
    Mono<List<Payment>> payments(ServerHttpRequest request) {
        return shop.payments(tenant(request));
    }

    /**
     * The writes that join this request's transaction, when it runs in one (a keyed request in the
     * atomic mode, on R2DBC): then its order or payment commits with the stored response.
     */
    private Optional<JoinedWrites> joined(ServerWebExchange exchange) {
        return joined.filter(writes -> IdempotentExchanges.execution(exchange)
                .flatMap(execution -> execution.unwrap(Connection.class)).isPresent());
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(ServerHttpRequest request) {
        return Tenants.of(request.getHeaders().getOrEmpty(Tenants.HEADER));
    }
}
