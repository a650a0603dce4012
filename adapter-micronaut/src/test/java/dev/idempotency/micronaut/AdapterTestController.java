package dev.idempotency.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.types.files.StreamedFile;
import io.micronaut.serde.annotation.Serdeable;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Routes for the adapter's own tests: a POJO body, a reactive and a streamed result, a file, a
 * mapped exception. Non-blocking on purpose (no {@code @ExecuteOn}), as most Micronaut code is.
 */
@Controller
@Requires(property = "test.routes", value = "adapter")
class AdapterTestController {

    /** The request body, bound by the server as usual. */
    @Serdeable
    record Widget(String name, int count) {
    }

    /** The response body: non-ASCII text and a float, so the encoding shows in the bytes. */
    @Serdeable
    record WidgetCreated(int id, String name, int count, String label, double ratio) {
    }

    static final class OutOfStock extends RuntimeException {
        OutOfStock() {
            super("out of stock");
        }
    }

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();

    int runs(String route) {
        return runs.computeIfAbsent(route, r -> new AtomicInteger()).get();
    }

    private int ran(String route) {
        return runs.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
    }

    @Post("/widgets")
    HttpResponse<WidgetCreated> create(@Body Widget widget) {
        ran("widgets");
        int id = ids.incrementAndGet();
        return HttpResponse.created(new WidgetCreated(id, widget.name(), widget.count(), "Größe ✓ 中", 1.0 / 3))
                .header(HttpHeaders.LOCATION, "/widgets/" + id);
    }

    @Post("/reactive")
    Mono<Map<String, Object>> reactive(@Body Widget widget) {
        ran("reactive");
        int id = ids.incrementAndGet();
        return Mono.delay(Duration.ofMillis(20)).map(tick -> Map.of("id", id, "name", widget.name()));
    }

    @Post(value = "/stream", produces = MediaType.TEXT_PLAIN)
    Publisher<String> stream() {
        int run = ran("stream");
        return Flux.just("run ", String.valueOf(run), " of a stream");
    }

    @Post("/file")
    StreamedFile file() {
        int run = ran("file");
        byte[] content = ("file run " + run).getBytes(StandardCharsets.UTF_8);
        return new StreamedFile(new ByteArrayInputStream(content), MediaType.TEXT_PLAIN_TYPE);
    }

    @Post("/attachment")
    StreamedFile attachment() {
        ran("attachment");
        byte[] content = "an attachment".getBytes(StandardCharsets.UTF_8);
        return new StreamedFile(new ByteArrayInputStream(content), MediaType.TEXT_PLAIN_TYPE).attach("report.txt");
    }

    @Post("/out-of-stock")
    Map<String, Object> outOfStock() {
        ran("out-of-stock");
        throw new OutOfStock();
    }

    @Error(exception = OutOfStock.class)
    HttpResponse<Map<String, Object>> onOutOfStock(HttpRequest<?> request, OutOfStock e) {
        return HttpResponse.<Map<String, Object>>status(HttpStatus.I_AM_A_TEAPOT).body(Map.of("error", e.getMessage()));
    }

    @Post("/execution")
    Map<String, Object> execution(HttpRequest<?> request) {
        return Map.of("key", IdempotentRequests.execution(request).map(e -> e.key().key()).orElse("none"));
    }

    /** The first call succeeds after a while; a later one answers 409, as a unique constraint would. */
    @Post("/twin")
    HttpResponse<Map<String, Object>> twin() throws InterruptedException {
        int run = ran("twin");
        if (run == 1) {
            Thread.sleep(300);
            return HttpResponse.created(Map.of("twin", run));
        }
        Thread.sleep(900);
        return HttpResponse.<Map<String, Object>>status(HttpStatus.CONFLICT).body(Map.of("error", "duplicate"));
    }

    @Get("/thread")
    @Produces(MediaType.TEXT_PLAIN)
    String thread() {
        return Thread.currentThread().getName();
    }

    @Post("/elsewhere")
    Map<String, Object> elsewhere() {
        return Map.of("run", ran("elsewhere"));
    }
}
