package dev.idempotency.micronaut;

import dev.idempotency.testkit.ConformanceApp;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.cookie.Cookie;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Map;

/** {@link ConformanceApp}'s routes as an ordinary Micronaut controller. */
@Controller
@Requires(property = "test.routes", value = "conformance")
@ExecuteOn(TaskExecutors.BLOCKING)
class ConformanceController {

    private final ConformanceApp app;

    ConformanceController(ConformanceApp app) {
        this.app = app;
    }

    @Post("/orders")
    HttpResponse<Map<String, Object>> createOrder(@Body byte[] body, @Nullable @QueryValue String delayMs) {
        Map<String, Object> order = app.createOrder(body, delayMs);
        String id = String.valueOf(order.get("id"));
        return HttpResponse.created(order)
                .header(HttpHeaders.LOCATION, "/orders/" + id)
                .header("X-Order-Seq", id)
                .cookie(Cookie.of("session", id));
    }

    @Post("/payments")
    Map<String, Object> createPayment(@Body byte[] body) {
        return app.createPayment(body);
    }

    @Post("/orders/bulk")
    Map<String, Object> createBulk(@Body byte[] body) {
        return app.createBulk(body);
    }

    @Post("/orders/{id}")
    Map<String, Object> updateOrder(String id, @Body byte[] body) {
        return app.updateOrder(id, body);
    }

    @Post("/reject")
    HttpResponse<Map<String, Object>> reject() {
        return HttpResponse.badRequest(app.reject());
    }

    @Post("/fail")
    Object fail() {
        return app.fail();
    }

    @Post("/text")
    @Produces(MediaType.TEXT_PLAIN + ";charset=utf-8")
    String text() {
        return app.text();
    }

    @Get("/orders")
    List<Map<String, Object>> listOrders() {
        return app.listOrders();
    }
}
