package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.jakartars.Idempotent;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveResourceInfo;
import org.junit.jupiter.api.Test;

/**
 * No store call on a Vert.x event loop: covered methods run, filters included, on worker threads
 * (a {@code Uni} method made {@code @Blocking} too, its response's store call included), and a
 * covered method Quarkus would run on the event loop is refused while the application starts.
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class NonBlockingTest {

    @TestHTTPResource("/")
    URI base;

    @Inject
    StoreCallThreads storeCalls;

    @Inject
    IdempotencyConfiguration config;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void noStoreCallIsMadeOnAnEventLoopThread() throws Exception {
        int callsBefore = storeCalls.calls.get();
        int laterBefore = OrdersResource.LATER.get();
        String key = "key-" + UUID.randomUUID();
        List<CompletableFuture<HttpResponse<String>>> duplicates = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            duplicates.add(http.sendAsync(post("/app/later", key), HttpResponse.BodyHandlers.ofString()));
            duplicates.add(http.sendAsync(post("/app/orders", "key-" + UUID.randomUUID()), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> response : duplicates) {
            statuses.add(response.get().statusCode());
        }
        HttpResponse<String> retry = http.send(post("/app/later", key), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> list = http.send(HttpRequest.newBuilder(base.resolve("/app/orders")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        http.send(HttpRequest.newBuilder(base.resolve("/q/health/ready")).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(statuses).allSatisfy(status -> assertThat(status).isIn(201, 409));
        assertThat(OrdersResource.LATER.get()).as("the @Blocking Uni method ran once for its key").isEqualTo(laterBefore + 1);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(storeCalls.calls.get() - callsBefore).as("store calls made").isGreaterThanOrEqualTo(22);
        assertThat(storeCalls.onEventLoop).as("store calls on an event loop").isEmpty();
    }

    @Test
    void aCoveredMethodOnTheEventLoopIsRefusedAtStart() {
        IdempotencyBinding binding = new IdempotencyBinding(config);
        Registrations registrations = new Registrations();

        assertThatThrownBy(() -> binding.configure(info("create", true), registrations))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Reactive.class.getName() + ".create runs on the Vert.x event loop")
                .hasMessageContaining("@io.smallrye.common.annotation.Blocking");
        binding.configure(info("list", true), registrations);
        binding.configure(info("createOnWorker", false), registrations);

        assertThat(registrations.priorities).as("an uncovered method on the event loop and a @Blocking one: bound")
                .containsExactly(3000, 4500, 3000, 4500);
    }

    private static ResteasyReactiveResourceInfo info(String method, boolean nonBlocking) {
        return new ResteasyReactiveResourceInfo(method, Reactive.class, new Class[0], nonBlocking, Reactive.class.getName());
    }

    private HttpRequest post(String path, String key) {
        return HttpRequest.newBuilder(base.resolve(path)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build();
    }

    /**
     * Only its methods are read. Covered by {@link Idempotent} rather than by an HTTP method: with a
     * {@code @POST} method Quarkus REST deploys it as a sub-resource, and then the start fails with
     * the message above.
     */
    public interface Reactive {
        @Idempotent
        Uni<String> create();

        Uni<String> list();

        /** As Quarkus REST gives it when the method is {@code @Blocking} (here not allowed outside a resource). */
        @Idempotent
        Uni<String> createOnWorker();
    }

    private static final class Registrations implements FeatureContext {
        final List<Integer> priorities = new ArrayList<>();

        @Override
        public FeatureContext register(Object component, int priority) {
            priorities.add(priority);
            return this;
        }

        @Override
        public Configuration getConfiguration() {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext property(String name, Object value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass, int priority) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass, Class<?>... contracts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Class<?> componentClass, Map<Class<?>, Integer> contracts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Object component) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Object component, Class<?>... contracts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FeatureContext register(Object component, Map<Class<?>, Integer> contracts) {
            throw new UnsupportedOperationException();
        }
    }
}
