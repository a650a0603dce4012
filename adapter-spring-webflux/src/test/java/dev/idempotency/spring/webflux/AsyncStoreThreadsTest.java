package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Over an asynchronous store whose stages complete on a thread of its own — as a Redis client's
 * I/O thread completes them — the handler does not run on that thread, where its work would hold
 * up every store call of the application.
 */
class AsyncStoreThreadsTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static ExecutorService storeThread;
    private static IdempotencyEngine engine;
    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        storeThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "store-io"));
        engine = new IdempotencyEngine(AsyncStore.of(new InMemoryStore(), storeThread), IdempotencyConfig.defaults());
        SpringApplication application = new SpringApplication(ThreadService.class);
        application.addInitializers(c -> c.getBeanFactory().registerSingleton("idempotencyEngine", engine));
        context = application.run("--server.port=0", "--server.address=127.0.0.1", "--idempotency.enabled=true",
                "--idempotency.paths=/orders");
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        context.close();
        engine.close();
        storeThread.shutdown();
    }

    @Test
    void theHandlerDoesNotRunOnTheStoresThread() throws Exception {
        HttpRequest order = HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build();
        HttpResponse<String> first = HTTP.send(order, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> retry = HTTP.send(order, HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).doesNotContain("store-io");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class ThreadService {
    }

    /** Answers with the thread it ran on. */
    @RestController
    static class Orders {

        @PostMapping("/orders")
        Mono<String> create() {
            return Mono.just("ran on " + Thread.currentThread().getName());
        }
    }
}
