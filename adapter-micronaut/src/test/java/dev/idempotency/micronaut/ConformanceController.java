package dev.idempotency.micronaut;

import dev.idempotency.testkit.ConformanceApp;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.cookie.Cookie;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

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

    @Post("/async")
    CompletableFuture<HttpResponse<Map<String, Object>>> createOrderLater(@Body byte[] body,
                                                                        @Nullable @QueryValue String delayMs) {
        return app.createOrderLater(body, delayMs).thenApply(order -> HttpResponse.created(order)
                .header(HttpHeaders.LOCATION, "/orders/" + order.get("id")));
    }

    @Post("/mapped")
    Object createOrderByException(@Body byte[] body) {
        return app.createOrderByException(body);
    }

    @Error(exception = ConformanceApp.Mapped.class)
    HttpResponse<Map<String, Object>> mapped(HttpRequest<?> request, ConformanceApp.Mapped e) {
        return HttpResponse.created(e.order()).header(HttpHeaders.LOCATION, e.location());
    }

    /** Each chunk goes out as it is emitted, {@code delayMs} after the one before. */
    @Post("/stream")
    HttpResponse<Publisher<String>> stream(@Nullable @QueryValue String delayMs) {
        ConformanceApp.Chunks chunks = app.streamChunks();
        Duration delay = Duration.ofMillis(delayMs == null || delayMs.isBlank() ? 0 : Long.parseLong(delayMs));
        Flux<String> body = Flux.concat(Flux.just(chunks.chunks().get(0)),
                Flux.fromIterable(chunks.chunks().subList(1, chunks.chunks().size())).delayElements(delay));
        return HttpResponse.ok((Publisher<String>) body)
                .contentType(MediaType.TEXT_PLAIN + ";charset=utf-8")
                .header(HttpHeaders.LOCATION, chunks.location());
    }

    @Post("/large")
    HttpResponse<byte[]> large(@Nullable @QueryValue String bytes, @Nullable @QueryValue String type,
                               @Nullable @QueryValue String delayMs) {
        ConformanceApp.Blob blob = app.large(bytes, type, delayMs);
        return HttpResponse.created(blob.body())
                .contentType(blob.contentType())
                .header(HttpHeaders.LOCATION, blob.location());
    }

    @Get("/orders")
    List<Map<String, Object>> listOrders() {
        return app.listOrders();
    }
}
