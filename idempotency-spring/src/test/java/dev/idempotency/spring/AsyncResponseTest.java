package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A controller that answers asynchronously ({@code Callable}) under a key: its response reaches
 * the client whole, is not stored (it is written after the filter returns), and a retry runs it again.
 */
class AsyncResponseTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final AtomicInteger RUNS = new AtomicInteger();

    private ConfigurableApplicationContext context;
    private URI base;

    @BeforeEach
    void start() {
        RUNS.set(0);
        context = new SpringApplication(AsyncService.class).run("--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--idempotency.enabled=true",
                // H2 is on the test classpath, so Boot makes a DataSource; this test keeps records in memory
                "--idempotency.jdbc.enabled=false");
        base = SpringConformanceTest.baseUri(context);
    }

    @AfterEach
    void stop() {
        context.close();
    }

    private HttpResponse<String> post(String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve("/later"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anAsynchronousResponseIsSentWholeAndNotStored() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("{\"run\":1}");
        HttpResponse<String> retry = post(key);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.body()).isEqualTo("{\"run\":2}");
        assertThat(RUNS.get()).isEqualTo(2);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(LaterController.class)
    static class AsyncService {
    }

    @RestController
    static class LaterController {
        @PostMapping("/later")
        Callable<Map<String, Object>> later() {
            return () -> Map.of("run", RUNS.incrementAndGet());
        }
    }
}
