package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * No store call on a Vert.x event loop: covered methods run, filters included, on worker threads
 * (a {@code Uni} method made {@code @Blocking} too, its response's store call included), and a
 * keyed request to a method Quarkus runs on the event loop has its store calls made on worker
 * threads, while the method itself stays on the event loop.
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class NonBlockingTest {

    @TestHTTPResource("/")
    URI base;

    @Inject
    StoreCallThreads storeCalls;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void noStoreCallIsMadeOnAnEventLoopThread() throws Exception {
        int callsBefore = storeCalls.calls.get();
        int laterBefore = OrdersResource.LATER.get();
        int reactiveBefore = OrdersResource.REACTIVE.get();
        OrdersResource.REACTIVE_ON_EVENT_LOOP.clear();
        String key = "key-" + UUID.randomUUID();
        String reactiveKey = "key-" + UUID.randomUUID();
        List<CompletableFuture<HttpResponse<String>>> duplicates = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            duplicates.add(http.sendAsync(post("/app/later", key), HttpResponse.BodyHandlers.ofString()));
            duplicates.add(http.sendAsync(post("/app/reactive", reactiveKey), HttpResponse.BodyHandlers.ofString()));
            duplicates.add(http.sendAsync(post("/app/orders", "key-" + UUID.randomUUID()), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> response : duplicates) {
            statuses.add(response.get().statusCode());
        }
        HttpResponse<String> retry = http.send(post("/app/later", key), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> reactiveRetry = http.send(post("/app/reactive", reactiveKey), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> unkeyed = http.send(post("/app/reactive", null), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> list = http.send(HttpRequest.newBuilder(base.resolve("/app/orders")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        http.send(HttpRequest.newBuilder(base.resolve("/q/health/ready")).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(storeCalls.onEventLoop).as("store calls on an event loop").isEmpty();
        assertThat(statuses).allSatisfy(status -> assertThat(status).isIn(201, 409));
        assertThat(OrdersResource.LATER.get()).as("the @Blocking Uni method ran once for its key").isEqualTo(laterBefore + 1);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(reactiveRetry.statusCode()).isEqualTo(201);
        assertThat(reactiveRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(unkeyed.statusCode()).isEqualTo(201);
        assertThat(OrdersResource.REACTIVE.get()).as("the event-loop method: once for its key, once without a key")
                .isEqualTo(reactiveBefore + 2);
        assertThat(OrdersResource.REACTIVE_ON_EVENT_LOOP).as("the method stays on the event loop, keyed or not")
                .containsExactly(true, true);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(storeCalls.calls.get() - callsBefore).as("store calls made").isGreaterThanOrEqualTo(33);
    }

    private HttpRequest post(String path, String key) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"));
        return (key == null ? request : request.header("Idempotency-Key", key)).build();
    }
}
