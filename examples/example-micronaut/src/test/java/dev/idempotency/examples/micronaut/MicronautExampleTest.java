package dev.idempotency.examples.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.examples.ExampleSettings;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The examples' HTTP contract, against the real Micronaut service on embedded H2. */
class MicronautExampleTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";

    private final HttpClient http = HttpClient.newHttpClient();
    private ApplicationContext context;
    private int port;

    @AfterEach
    void stop() {
        if (context != null) {
            context.close(); // stops the server, closes the engine and the database
        }
    }

    private void start(Map<String, String> env) {
        context = MicronautExample.start(ExampleSettings.from(env).withPort(0));
        port = context.getBean(EmbeddedServer.class).getPort();
    }

    private HttpRequest.Builder request(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
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
    void theContractOfTheExampleService() throws Exception {
        start(Map.of());
        String key = key();

        // created, replayed byte for byte, readable, per tenant
        HttpResponse<String> created = post("/orders", ORDER, "Idempotency-Key", key);
        HttpResponse<String> retry = post("/orders", ORDER, "Idempotency-Key", key);
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode order = json(created);
        assertThat(created.body()).isEqualTo("{\"id\":" + order.path("id").asLong()
                + ",\"item\":\"book\",\"quantity\":2,\"status\":\"created\"}");
        String location = "/orders/" + order.path("id").asLong();
        assertThat(created.headers().firstValue("Location")).hasValue(location);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(created.body());
        assertThat(retry.headers().firstValue("Location")).hasValue(location);
        assertThat(json(get(location))).isEqualTo(order);
        assertThat(get("/orders/424242").statusCode()).isEqualTo(404);
        assertThat(json(get("/orders"))).hasSize(1);
        assertThat(json(get("/orders", "X-Tenant-Id", "acme"))).isEmpty();

        // the same key with another body
        assertThat(post("/orders", "{\"item\":\"pen\",\"quantity\":2}", "Idempotency-Key", key).statusCode())
                .isEqualTo(422);

        // an invalid body is a problem, and is not stored
        String invalidKey = key();
        for (int attempt = 0; attempt < 2; attempt++) {
            HttpResponse<String> invalid = post("/orders", "{\"item\":\"book\",\"quantity\":0}",
                    "Idempotency-Key", invalidKey);
            assertThat(invalid.statusCode()).isEqualTo(400);
            assertThat(invalid.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(json(invalid).path("code").asText()).isEqualTo("validation_failed");
            assertThat(replayed(invalid)).isFalse();
        }
        assertThat(post("/orders?delayMs=9999", ORDER).statusCode()).isEqualTo(400);

        // a partial payment is not stored: its retry is a new attempt
        String paymentKey = key();
        String partial = "{\"amount\":500,\"outcome\":\"partial\"}";
        HttpResponse<String> payment = post("/payments", partial, "Idempotency-Key", paymentKey);
        HttpResponse<String> paymentRetry = post("/payments", partial, "Idempotency-Key", paymentKey);
        assertThat(payment.statusCode()).isEqualTo(200);
        assertThat(json(payment).path("status").asText()).isEqualTo("partial");
        assertThat(replayed(paymentRetry)).isFalse();
        assertThat(json(get("/payments"))).hasSize(2);
    }

    @Test
    void aDuplicateWhileTheFirstIsRunningGets409() throws Exception {
        start(Map.of("IDEMPOTENCY_MODE", "reserve"));
        String key = key();
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(request("/orders?delayMs=1500",
                        "Idempotency-Key", key, "Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofString());
        Thread.sleep(400);

        HttpResponse<String> duplicate = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }

    @Test
    void withIdempotencyOffTheSameRoutesRunEveryTime() throws Exception {
        start(Map.of("IDEMPOTENCY", "off"));
        String key = key();

        HttpResponse<String> first = post("/orders", ORDER, "Idempotency-Key", key);
        HttpResponse<String> second = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).isFalse();
        assertThat(json(get("/orders"))).hasSize(2);
    }
}
