package dev.idempotency.examples.micronaut;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.ShopRepository;
import dev.idempotency.examples.Tenants;
import dev.idempotency.micronaut.IdempotentRequests;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.Connection;
import java.util.List;
import java.util.Optional;

/**
 * The service's routes. Bodies are read as bytes and checked by the shared rules
 * ({@link ExampleRequests}), so every framework's example accepts and refuses the same requests;
 * a refusal is a {@link ProblemException}, answered by {@link ProblemExceptionHandler}.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING) // JDBC
class ShopController {

    private final ExampleApp app;
    private final ShopRepository repository;

    ShopController(ExampleApp app, ShopRepository repository) {
        this.app = app;
        this.repository = repository;
    }

    @Post("/orders")
    HttpResponse<Order> createOrder(@Body @Nullable byte[] body, @QueryValue @Nullable String delayMs,
                                    HttpRequest<?> request) {
        NewOrder order = ExampleRequests.order(body);
        Order created = app.createOrder(transaction(request), tenant(request.getHeaders()), order, delayMs);
        return HttpResponse.created(created).header(HttpHeaders.LOCATION, "/orders/" + created.id());
    }

    @Get("/orders")
    List<Order> orders(HttpHeaders headers) {
        return repository.orders(tenant(headers));
    }

    @Get("/orders/{id}")
    Order order(String id, HttpHeaders headers) {
        long orderId = ExampleRequests.id(id).orElseThrow(() -> ProblemException.notFound("No order " + id));
        return repository.order(tenant(headers), orderId)
                .orElseThrow(() -> ProblemException.notFound("No order " + id));
    }

    @Post("/payments")
    Payment createPayment(@Body @Nullable byte[] body, HttpRequest<?> request) {
        return app.createPayment(transaction(request), tenant(request.getHeaders()), ExampleRequests.payment(body));
    }

    @Get("/payments")
    List<Payment> payments(HttpHeaders headers) {
        return repository.payments(tenant(headers));
    }

    /**
     * The atomic mode's transaction of this request, where its writes go so that they commit with
     * the stored response; empty in the other modes and for requests without a key.
     */
    private static Optional<Connection> transaction(HttpRequest<?> request) {
        return IdempotentRequests.execution(request).flatMap(execution -> execution.unwrap(Connection.class));
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(HttpHeaders headers) {
        return Tenants.of(headers.getAll(Tenants.HEADER));
    }
}
