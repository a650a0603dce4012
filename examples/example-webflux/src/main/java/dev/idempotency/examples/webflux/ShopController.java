package dev.idempotency.examples.webflux;

import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The service's routes, an annotated WebFlux controller returning {@link Mono}s. Bodies are read
 * as bytes and checked by the shared rules ({@link ExampleRequests}), so every framework's example
 * accepts and refuses the same requests; a refusal is a {@link ProblemException}, answered by
 * {@link ProblemAdvice}. {@code delayMs} is waited on a timer, before the write.
 */
@RestController
class ShopController {

    private final Shop shop;

    ShopController(Shop shop) {
        this.shop = shop;
    }

    @PostMapping("/orders")
    Mono<ResponseEntity<Order>> createOrder(@RequestBody(required = false) byte[] body,
                                            @RequestParam(required = false) String delayMs, ServerHttpRequest request) {
        NewOrder order = ExampleRequests.order(body);
        long delay = ExampleRequests.delayMillis(delayMs);
        Mono<Order> created = shop.createOrder(tenant(request), order);
        return (delay > 0 ? Mono.delay(Duration.ofMillis(delay)).then(created) : created)
                .map(o -> ResponseEntity.created(URI.create("/orders/" + o.id())).body(o));
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
    Mono<Payment> createPayment(@RequestBody(required = false) byte[] body, ServerHttpRequest request) {
        NewPayment payment = ExampleRequests.payment(body);
        return shop.createPayment(tenant(request), payment);
    }

    @GetMapping("/payments")
    Mono<List<Payment>> payments(ServerHttpRequest request) {
        return shop.payments(tenant(request));
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(ServerHttpRequest request) {
        return Tenants.of(request.getHeaders().getOrEmpty(Tenants.HEADER));
    }
}
