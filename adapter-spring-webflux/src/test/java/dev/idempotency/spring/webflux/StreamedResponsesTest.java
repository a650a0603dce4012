package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the filter does with each way a WebFlux handler writes its body: a {@code Flux} encoded as
 * one body ({@code writeWith}) is held and replayed byte for byte; SSE ({@code writeAndFlushWith})
 * streams and is kept without its body (a retry gets 410); a stream that fails after a flush, a
 * handler's {@code Mono.error} and an empty answer ({@code setComplete}) are never stored as a success.
 */
class StreamedResponsesTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static IdempotencyEngine engine;
    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        SpringApplication application = new SpringApplication(StreamService.class);
        application.addInitializers(c -> c.getBeanFactory().registerSingleton("idempotencyEngine", engine));
        context = application.run("--server.port=0", "--server.address=127.0.0.1", "--idempotency.enabled=true");
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        context.close();
        engine.close();
    }

    @Test
    void aFluxWrittenAsOneBodyIsHeldAndReplayedByteForByte() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = RUNS.get();
        HttpResponse<String> first = post("/items", key);
        HttpResponse<String> retry = post("/items", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).startsWith("[{\"n\":1,\"run\":");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(RUNS.get() - before).isEqualTo(1);
    }

    @Test
    void serverSentEventsStreamAndAreKeptWithoutTheirBody() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = RUNS.get();
        HttpResponse<String> first = post("/events", key);
        HttpResponse<String> retry = post("/events", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("data:event 1").contains("data:event 3");
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(retry.body()).contains("idempotency_response_not_stored");
        assertThat(RUNS.get() - before).isEqualTo(1);
    }

    @Test
    void aStreamThatFailsAfterAFlushReleasesTheKey() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = RUNS.get();
        postIgnoringBrokenResponse("/broken", key);
        postIgnoringBrokenResponse("/broken", key);

        assertThat(RUNS.get() - before).as("released, so the retry ran again").isEqualTo(2);
    }

    @Test
    void aHandlerErrorIsNeverStored() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = RUNS.get();
        assertThat(post("/error", key).statusCode()).isEqualTo(500);
        assertThat(post("/error", key).statusCode()).as("released, not 409").isEqualTo(500);
        assertThat(RUNS.get() - before).isEqualTo(2);
    }

    @Test
    void anAnswerWithoutABodyIsStoredAndReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = RUNS.get();
        HttpResponse<String> first = post("/empty", key);
        HttpResponse<String> retry = post("/empty", key);

        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(retry.statusCode()).isEqualTo(202);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEmpty();
        assertThat(RUNS.get() - before).isEqualTo(1);
    }

    private static HttpResponse<String> post(String path, String key) throws Exception {
        return HTTP.send(request(path, key), HttpResponse.BodyHandlers.ofString());
    }

    private static void postIgnoringBrokenResponse(String path, String key) {
        try {
            HTTP.send(request(path, key), HttpResponse.BodyHandlers.ofString());
        } catch (Exception expected) {
            // the connection is closed mid-body
        }
    }

    private static HttpRequest request(String path, String key) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Streams.class)
    static class StreamService {
    }

    @RestController
    static class Streams {

        record Item(int n, int run) {
        }

        @PostMapping(path = "/items", produces = MediaType.APPLICATION_JSON_VALUE)
        Flux<Item> items() {
            int run = RUNS.incrementAndGet();
            return Flux.range(1, 3).delayElements(Duration.ofMillis(20)).map(n -> new Item(n, run));
        }

        @PostMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<String> events() {
            RUNS.incrementAndGet();
            return Flux.range(1, 3).delayElements(Duration.ofMillis(20)).map(n -> "event " + n);
        }

        @PostMapping("/broken")
        Mono<Void> broken(ServerHttpResponse response) {
            RUNS.incrementAndGet();
            Flux<Flux<DataBuffer>> chunks = Flux.concat(
                    Mono.just(Flux.just(response.bufferFactory().wrap("part 1\n".getBytes(StandardCharsets.UTF_8)))),
                    Mono.delay(Duration.ofMillis(50)).then(Mono.error(new IllegalStateException("broke mid-stream"))));
            return response.writeAndFlushWith(chunks);
        }

        @PostMapping("/error")
        Mono<String> error() {
            RUNS.incrementAndGet();
            return Mono.error(new IllegalStateException("failed on purpose"));
        }

        @PostMapping("/empty")
        Mono<Void> empty(ServerHttpResponse response) {
            RUNS.incrementAndGet();
            response.setStatusCode(HttpStatus.ACCEPTED);
            return response.setComplete();
        }
    }
}
