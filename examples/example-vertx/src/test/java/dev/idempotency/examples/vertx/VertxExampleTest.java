package dev.idempotency.examples.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The examples' HTTP contract, against the real Vert.x service on embedded H2. */
class VertxExampleTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";

    private static Vertx vertx;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private ExampleApp app;
    private HttpServer server;

    @BeforeAll
    static void startVertx() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stopVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (app != null) {
            app.close();
        }
    }

    private void start(Map<String, String> env) throws Exception {
        app = ExampleApp.create(ExampleSettings.from(env).withPort(0));
        server = VertxExample.start(vertx, app).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpRequest.Builder request(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + path));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    private HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        return http.send(request(path, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        return http.send(request(path, headers).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    @Test
    void anOrderIsCreatedReplayedOnRetryAndReadBack() throws Exception {
        start(Map.of());
        String key = key();

        HttpResponse<String> created = post("/orders", ORDER, "Idempotency-Key", key);
        HttpResponse<String> retry = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.body()).matches("\\{\"id\":\\d+,\"item\":\"book\",\"quantity\":2,\"status\":\"created\"}");
        String location = "/orders/" + json(created).path("id").asLong();
        assertThat(created.headers().firstValue("Location")).hasValue(location);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(created.body());
        assertThat(retry.headers().firstValue("Location")).hasValue(location);
        assertThat(json(get(location))).isEqualTo(json(created));
        assertThat(get("/orders/424242").statusCode()).isEqualTo(404);
        assertThat(json(get("/orders"))).hasSize(1);
        assertThat(post("/orders", "{\"item\":\"pen\",\"quantity\":2}", "Idempotency-Key", key).statusCode())
                .isEqualTo(422);
    }

    @Test
    void anInvalidBodyIsAProblemAndIsNotStored() throws Exception {
        start(Map.of());
        String key = key();

        for (int attempt = 0; attempt < 2; attempt++) {
            HttpResponse<String> invalid = post("/orders", "{\"item\":\"book\",\"quantity\":0}", "Idempotency-Key", key);
            assertThat(invalid.statusCode()).isEqualTo(400);
            assertThat(invalid.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(json(invalid).path("code").asText()).isEqualTo("validation_failed");
            assertThat(replayed(invalid)).isFalse();
        }
        assertThat(post("/orders?delayMs=9999", ORDER).statusCode()).isEqualTo(400);
        assertThat(json(get("/orders"))).isEmpty();
    }

    @Test
    void aPartialPaymentIsNotStoredAndListsArePerTenant() throws Exception {
        start(Map.of());
        String key = key();
        String body = "{\"amount\":500,\"outcome\":\"partial\"}";

        HttpResponse<String> first = post("/payments", body, "Idempotency-Key", key, "X-Tenant-Id", "acme");
        HttpResponse<String> retry = post("/payments", body, "Idempotency-Key", key, "X-Tenant-Id", "acme");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(json(first).path("status").asText()).isEqualTo("partial");
        assertThat(replayed(retry)).isFalse();
        assertThat(json(retry).path("id").asLong()).isNotEqualTo(json(first).path("id").asLong());
        assertThat(json(get("/payments", "X-Tenant-Id", "acme"))).hasSize(2);
        assertThat(json(get("/payments"))).isEmpty();
    }

    @Test
    void aDuplicateWhileTheFirstIsRunningGets409() throws Exception {
        start(Map.of());
        String key = key();
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(request("/orders?delayMs=1500",
                        "Idempotency-Key", key, "Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofString());
        Thread.sleep(300);

        HttpResponse<String> duplicate = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Retry-After")).isPresent();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }

    @Test
    void withIdempotencyOffTheSameRoutesRunEveryTime() throws Exception {
        start(Map.of("IDEMPOTENCY", "off"));
        String key = key();

        post("/orders", ORDER, "Idempotency-Key", key);
        HttpResponse<String> second = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).isFalse();
        assertThat(json(get("/orders"))).hasSize(2);
    }
}
