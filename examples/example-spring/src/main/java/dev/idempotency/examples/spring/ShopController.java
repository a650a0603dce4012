package dev.idempotency.examples.spring;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import dev.idempotency.spring.IdempotentRequests;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.sql.Connection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The service's routes, a plain Spring MVC controller. Bodies are read as bytes and checked by the
 * shared rules ({@link ExampleRequests}), so every framework's example accepts and refuses the
 * same requests; a refusal is a {@link ProblemException}, answered by {@link ProblemAdvice}.
 */
@RestController
class ShopController {

    private final ExampleApp app;
    private final JoinedWrites joined;

    ShopController(ExampleApp app, JoinedWrites joined) {
        this.app = app;
        this.joined = joined;
    }

    @PostMapping("/orders")
    ResponseEntity<Order> createOrder(@RequestBody(required = false) byte[] body,
                                      @RequestParam(required = false) String delayMs, HttpServletRequest request) {
        NewOrder order = ExampleRequests.order(body);
        Order created = atomic(request)
                ? joined.createOrder(tenant(request), order, delayMs)
                : app.createOrder(Optional.empty(), tenant(request), order, delayMs);
        return ResponseEntity.created(URI.create("/orders/" + created.id())).body(created);
    }

    @GetMapping("/orders")
    List<Order> orders(HttpServletRequest request) {
        return app.repository().orders(tenant(request));
    }

    @GetMapping("/orders/{id}")
    Order order(@PathVariable String id, HttpServletRequest request) {
        long orderId = ExampleRequests.id(id).orElseThrow(() -> ProblemException.notFound("No order " + id));
        return app.repository().order(tenant(request), orderId)
                .orElseThrow(() -> ProblemException.notFound("No order " + id));
    }

    @PostMapping("/payments")
    Payment createPayment(@RequestBody(required = false) byte[] body, HttpServletRequest request) {
        NewPayment payment = ExampleRequests.payment(body);
        return atomic(request)
                ? joined.createPayment(tenant(request), payment)
                : app.createPayment(Optional.empty(), tenant(request), payment);
    }

    @GetMapping("/payments")
    List<Payment> payments(HttpServletRequest request) {
        return app.repository().payments(tenant(request));
    }

    /**
     * Whether this request runs in the atomic mode's transaction (a keyed request in that mode):
     * then its writes go through {@link JoinedWrites}, which joins it as Spring's current
     * transaction, so that they commit with the stored response.
     */
    private static boolean atomic(HttpServletRequest request) {
        return IdempotentRequests.execution(request).flatMap(execution -> execution.unwrap(Connection.class)).isPresent();
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(HttpServletRequest request) {
        return Tenants.of(Collections.list(request.getHeaders(Tenants.HEADER)));
    }
}
