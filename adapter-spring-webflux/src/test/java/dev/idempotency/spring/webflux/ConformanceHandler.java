package dev.idempotency.spring.webflux;

import dev.idempotency.testkit.ConformanceApp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link ConformanceApp}'s routes as an ordinary annotated WebFlux controller. The app's methods
 * may sleep ({@code delayMs}): they run on the bounded elastic scheduler, as blocking work in a
 * WebFlux handler must; the streamed route writes and flushes each chunk ({@code writeAndFlushWith}).
 */
@RestController
class ConformanceHandler {

    private final Supplier<ConformanceApp> apps;

    /** {@code apps}: the app of the test that runs now. */
    ConformanceHandler(Supplier<ConformanceApp> apps) {
        this.apps = apps;
    }

    private static <T> Mono<T> offLoop(Callable<T> work) {
        return Mono.fromCallable(work).subscribeOn(Schedulers.boundedElastic());
    }

    @PostMapping("/orders")
    Mono<ResponseEntity<Map<String, Object>>> createOrder(@RequestBody byte[] body,
                                                          @RequestParam(required = false) String delayMs) {
        return offLoop(() -> apps.get().createOrder(body, delayMs)).map(order -> {
            String id = String.valueOf(order.get("id"));
            return ResponseEntity.status(HttpStatus.CREATED)
                    .header(HttpHeaders.LOCATION, "/orders/" + id)
                    .header("X-Order-Seq", id)
                    .header(HttpHeaders.SET_COOKIE, ResponseCookie.from("session", id).build().toString())
                    .body(order);
        });
    }

    @PostMapping("/payments")
    Mono<Map<String, Object>> createPayment(@RequestBody byte[] body) {
        return Mono.fromSupplier(() -> apps.get().createPayment(body));
    }

    @PostMapping("/orders/bulk")
    Mono<Map<String, Object>> createBulk(@RequestBody byte[] body) {
        return Mono.fromSupplier(() -> apps.get().createBulk(body));
    }

    @PostMapping("/orders/{id}")
    Mono<Map<String, Object>> updateOrder(@PathVariable String id, @RequestBody byte[] body) {
        return Mono.fromSupplier(() -> apps.get().updateOrder(id, body));
    }

    @PostMapping("/reject")
    Mono<ResponseEntity<Map<String, Object>>> reject() {
        return Mono.fromSupplier(() -> ResponseEntity.badRequest().body(apps.get().reject()));
    }

    @PostMapping("/fail")
    Mono<Object> fail() {
        return Mono.fromSupplier(() -> apps.get().fail());
    }

    @PostMapping(path = "/text", produces = "text/plain;charset=utf-8")
    Mono<String> text() {
        return Mono.fromSupplier(() -> apps.get().text());
    }

    @GetMapping(path = "/orders", produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<List<Map<String, Object>>> listOrders() {
        return Mono.fromSupplier(() -> apps.get().listOrders());
    }

    @PostMapping("/async")
    Mono<ResponseEntity<Map<String, Object>>> createOrderLater(@RequestBody byte[] body,
                                                               @RequestParam(required = false) String delayMs) {
        return Mono.defer(() -> Mono.fromFuture(apps.get().createOrderLater(body, delayMs)))
                .map(order -> ResponseEntity.status(HttpStatus.CREATED)
                        .header(HttpHeaders.LOCATION, "/orders/" + order.get("id"))
                        .body(order));
    }

    @PostMapping("/mapped")
    Mono<Object> createOrderByException(@RequestBody byte[] body) {
        return Mono.fromSupplier(() -> apps.get().createOrderByException(body));
    }

    @ExceptionHandler
    ResponseEntity<Map<String, Object>> mapped(ConformanceApp.Mapped e) {
        return ResponseEntity.status(HttpStatus.CREATED).header(HttpHeaders.LOCATION, e.location()).body(e.order());
    }

    @PostMapping("/stream")
    Mono<Void> stream(@RequestParam(required = false) String delayMs, ServerHttpResponse response) {
        ConformanceApp.Chunks stream = apps.get().streamChunks();
        long delay = delayMs == null || delayMs.isBlank() ? 0 : Long.parseLong(delayMs);
        response.getHeaders().setContentType(MediaType.parseMediaType("text/plain; charset=utf-8"));
        response.getHeaders().set(HttpHeaders.LOCATION, stream.location());
        Flux<Flux<DataBuffer>> chunks = Flux.range(0, stream.chunks().size())
                .concatMap(i -> Mono.delay(Duration.ofMillis(i == 0 ? 0 : delay)).thenReturn(i))
                .map(i -> Flux.just(response.bufferFactory()
                        .wrap(stream.chunks().get(i).getBytes(StandardCharsets.UTF_8))));
        return response.writeAndFlushWith(chunks);
    }

    @PostMapping("/large")
    Mono<ResponseEntity<byte[]>> large(@RequestParam(required = false) String bytes,
                                       @RequestParam(required = false) String type,
                                       @RequestParam(required = false) String delayMs) {
        return offLoop(() -> apps.get().large(bytes, type, delayMs)).map(blob -> ResponseEntity.status(HttpStatus.CREATED)
                .header(HttpHeaders.CONTENT_TYPE, blob.contentType())
                .header(HttpHeaders.LOCATION, blob.location())
                .body(blob.body()));
    }
}
