package dev.idempotency.spring;

import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HostileClientChecks;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/** {@link ConformanceApp}'s routes as an ordinary Spring MVC controller. */
@RestController
class ConformanceController {

    private final ConformanceApp app;

    ConformanceController(ConformanceApp app) {
        this.app = app;
    }

    @PostMapping("/orders")
    ResponseEntity<Map<String, Object>> createOrder(@RequestBody byte[] body,
                                                    @RequestParam(required = false) String delayMs) {
        Map<String, Object> order = app.createOrder(body, delayMs);
        String id = String.valueOf(order.get("id"));
        return ResponseEntity.status(HttpStatus.CREATED)
                .header(HttpHeaders.LOCATION, "/orders/" + id)
                .header("X-Order-Seq", id)
                .header(HttpHeaders.SET_COOKIE, ResponseCookie.from("session", id).build().toString())
                .body(order);
    }

    @PostMapping("/payments")
    Map<String, Object> createPayment(@RequestBody byte[] body) {
        return app.createPayment(body);
    }

    @PostMapping("/orders/bulk")
    Map<String, Object> createBulk(@RequestBody byte[] body) {
        return app.createBulk(body);
    }

    @PostMapping("/orders/{id}")
    Map<String, Object> updateOrder(@PathVariable String id, @RequestBody byte[] body) {
        return app.updateOrder(id, body);
    }

    @PostMapping("/reject")
    ResponseEntity<Map<String, Object>> reject() {
        return ResponseEntity.badRequest().body(app.reject());
    }

    @PostMapping("/fail")
    Object fail() {
        return app.fail();
    }

    @PostMapping(path = "/text", produces = "text/plain;charset=utf-8")
    String text() {
        return app.text();
    }

    @GetMapping(path = "/orders", produces = MediaType.APPLICATION_JSON_VALUE)
    List<Map<String, Object>> listOrders() {
        return app.listOrders();
    }

    @PostMapping("/async")
    CompletableFuture<ResponseEntity<Map<String, Object>>> createOrderLater(
            @RequestBody byte[] body, @RequestParam(required = false) String delayMs) {
        return app.createOrderLater(body, delayMs).thenApply(order -> ResponseEntity.status(HttpStatus.CREATED)
                .header(HttpHeaders.LOCATION, "/orders/" + order.get("id"))
                .body(order));
    }

    /** Spring MVC's own asynchronous timeout: a {@code DeferredResult} that gives up first (503). */
    @PostMapping("/timeout")
    DeferredResult<ResponseEntity<Map<String, Object>>> createOrderTooLate(
            @RequestBody byte[] body, @RequestParam(required = false) String delayMs) {
        DeferredResult<ResponseEntity<Map<String, Object>>> result =
                new DeferredResult<>(HostileClientChecks.SERVER_TIMEOUT.toMillis());
        app.createOrderTooLate(body, delayMs).thenAccept(order -> result.setResult(ResponseEntity
                .status(HttpStatus.CREATED).header(HttpHeaders.LOCATION, "/orders/" + order.get("id")).body(order)));
        return result;
    }

    /** Thrown on another thread: Spring MVC hands the exception to the {@code @ExceptionHandler} on an async dispatch. */
    @PostMapping("/mapped")
    CompletableFuture<Object> createOrderByException(@RequestBody byte[] body) {
        return CompletableFuture.supplyAsync(() -> app.createOrderByException(body));
    }

    @ExceptionHandler
    ResponseEntity<Map<String, Object>> mapped(ConformanceApp.Mapped e) {
        return ResponseEntity.status(HttpStatus.CREATED).header(HttpHeaders.LOCATION, e.location()).body(e.order());
    }

    @PostMapping("/stream")
    ResponseEntity<StreamingResponseBody> stream(@RequestParam(required = false) String delayMs) {
        ConformanceApp.Chunks stream = app.streamChunks();
        long delay = delayMs == null || delayMs.isBlank() ? 0 : Long.parseLong(delayMs);
        StreamingResponseBody body = out -> {
            for (int i = 0; i < stream.chunks().size(); i++) {
                if (i > 0) {
                    pause(delay);
                }
                out.write(stream.chunks().get(i).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        };
        return ResponseEntity.ok()
                .contentType(MediaType.parseMediaType("text/plain; charset=utf-8"))
                .header(HttpHeaders.LOCATION, stream.location())
                .body(body);
    }

    @PostMapping("/large")
    ResponseEntity<byte[]> large(@RequestParam(required = false) String bytes,
                                 @RequestParam(required = false) String type,
                                 @RequestParam(required = false) String delayMs) {
        ConformanceApp.Blob blob = app.large(bytes, type, delayMs);
        return ResponseEntity.status(HttpStatus.CREATED)
                .header(HttpHeaders.CONTENT_TYPE, blob.contentType())
                .header(HttpHeaders.LOCATION, blob.location())
                .body(blob.body());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
