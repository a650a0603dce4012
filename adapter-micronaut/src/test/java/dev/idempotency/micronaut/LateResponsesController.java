package dev.idempotency.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.server.types.files.StreamedFile;
import io.micronaut.http.sse.Event;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Routes whose work goes on after the controller method returns: a {@code CompletableFuture}, a
 * {@code Mono}, and streams (a {@code Flux} of text chunks, server-sent events, a
 * {@code StreamedFile} written by another thread). A stream sends its first chunk at once and the
 * rest after {@code delayMs}, or when the test opens the {@code gate} of that name.
 */
@Controller
@Requires(property = "test.routes", value = "late")
class LateResponsesController {

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();

    int runs(String route) {
        return runs.computeIfAbsent(route, r -> new AtomicInteger()).get();
    }

    /** Lets the streams waiting on {@code gate} go on. */
    void open(String gate) {
        gate(gate).complete(null);
    }

    private CompletableFuture<Void> gate(String name) {
        return gates.computeIfAbsent(name, n -> new CompletableFuture<>());
    }

    private int ran(String route) {
        runs.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
        return ids.incrementAndGet();
    }

    /** Completes once the gate is open, or after the delay; at once with neither. */
    private Mono<Void> rest(@Nullable String gate, @Nullable String delayMs) {
        if (gate != null) {
            return Mono.fromFuture(gate(gate));
        }
        long delay = delayMs == null ? 0 : Long.parseLong(delayMs);
        return Mono.delay(Duration.ofMillis(delay)).then();
    }

    @Post("/future")
    CompletableFuture<HttpResponse<Map<String, Object>>> future(@Nullable @QueryValue String delayMs) {
        int id = ran("future");
        long delay = delayMs == null ? 0 : Long.parseLong(delayMs);
        return CompletableFuture.supplyAsync(() -> HttpResponse.created(Map.<String, Object>of("id", id, "via", "future"))
                        .header(HttpHeaders.LOCATION, "/things/" + id),
                CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
    }

    @Post("/mono")
    Mono<Map<String, Object>> mono(@Nullable @QueryValue String delayMs) {
        int id = ran("mono");
        return Mono.delay(Duration.ofMillis(delayMs == null ? 0 : Long.parseLong(delayMs)))
                .map(tick -> Map.of("id", id, "via", "mono"));
    }

    @Post("/chunks")
    HttpResponse<Publisher<String>> chunks(@Nullable @QueryValue String gate, @Nullable @QueryValue String delayMs) {
        int id = ran("chunks");
        Flux<String> body = Flux.concat(Mono.just("chunk 1 of " + id + "\n"),
                rest(gate, delayMs).thenMany(Flux.just("chunk 2\n", "chunk 3\n")));
        return HttpResponse.ok((Publisher<String>) body)
                .contentType(MediaType.TEXT_PLAIN_TYPE)
                .header(HttpHeaders.LOCATION, "/streams/" + id);
    }

    @Post(value = "/events", produces = MediaType.TEXT_EVENT_STREAM)
    Publisher<Event<String>> events(@Nullable @QueryValue String gate, @Nullable @QueryValue String delayMs) {
        int id = ran("events");
        return Flux.concat(Mono.just(Event.of("event 1 of " + id)),
                rest(gate, delayMs).thenMany(Flux.just(Event.of("event 2"), Event.of("event 3"))));
    }

    /** A file whose bytes another thread is still writing while the first ones go out. */
    @Post("/file")
    StreamedFile file(@Nullable @QueryValue String gate, @Nullable @QueryValue String delayMs) throws IOException {
        int id = ran("file");
        PipedInputStream in = new PipedInputStream();
        PipedOutputStream out = new PipedOutputStream(in);
        write(out, "part 1 of " + id + "\n", false);
        rest(gate, delayMs).subscribe(null, null, () -> write(out, "part 2\n", true));
        return new StreamedFile(in, MediaType.TEXT_PLAIN_TYPE);
    }

    private static void write(PipedOutputStream out, String text, boolean last) {
        try {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            if (last) {
                out.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends a chunk, then fails. */
    @Post("/broken")
    HttpResponse<Publisher<String>> broken() {
        int id = ran("broken");
        Flux<String> body = Flux.concat(Mono.just("chunk 1 of " + id + "\n"),
                Mono.delay(Duration.ofMillis(50)).then(Mono.error(new IllegalStateException("the stream broke"))));
        return HttpResponse.ok((Publisher<String>) body).contentType(MediaType.TEXT_PLAIN_TYPE);
    }
}
