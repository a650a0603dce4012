package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.StoreCall;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.internal.AtOnce;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The auto-configured filter over the auto-configured, blocking {@code JdbcStore} on PostgreSQL (a
 * schema of its own): every store call runs on the filter's {@code idempotency} schedulers, none on
 * a Netty event loop — where BlockHound, installed for the whole run, would fail the JDBC driver's
 * socket reads — duplicates sent at once run the handler exactly once, and the store is actuator's
 * {@code idempotency} health component.
 */
class JdbcStoreOffTheEventLoopTest {

    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Map<String, String> THREADS = new ConcurrentHashMap<>(); // thread name -> an operation

    private static PostgresTestSchema schema;
    private static ConfigurableApplicationContext context;
    private static ConformanceApp app;
    private static URI base;

    @BeforeAll
    static void start() {
        schema = new PostgresTestSchema();
        app = new ConformanceApp();
        SpringApplication application = new SpringApplication(JdbcService.class);
        application.addInitializers(c -> c.getBeanFactory().registerSingleton("conformanceApp",
                (Supplier<ConformanceApp>) () -> app));
        context = application.run("--server.port=0", "--server.address=127.0.0.1",
                "--spring.datasource.url=" + schema.url(),
                "--spring.datasource.username=" + PostgresTestSchema.USER,
                "--spring.datasource.password=" + PostgresTestSchema.PASSWORD,
                "--idempotency.enabled=true",
                "--idempotency.paths=/orders,/stream",
                "--idempotency.jdbc.initialize-schema=always",
                "--management.endpoint.health.show-details=always");
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        schema.close();
    }

    @Test
    void theEngineRunsOverTheBlockingJdbcStore() {
        IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
        assertThat(context.getBean(JdbcStore.class)).isNotNull();
        assertThat(engine.blocksCaller()).isTrue();
    }

    @Test
    void aKeyedPostAndItsReplayCallTheStoreOnlyOffTheEventLoop() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = app.executions("orders");
        THREADS.clear();

        HttpResponse<String> first = post("/orders", key);
        HttpResponse<String> retry = post("/orders", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(app.executions("orders") - before).isEqualTo(1);
        assertThat(THREADS).isNotEmpty();
        assertThat(THREADS.keySet()).allSatisfy(thread -> assertThat(thread).startsWith("idempotency-"));
        assertThat(THREADS.keySet()).anyMatch(thread -> thread.startsWith("idempotency-completion-"));
    }

    @Test
    void twentyDuplicatesAtOnceRunTheHandlerOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = app.executions("orders");

        List<HttpResponse<String>> responses = AtOnce.run(20, () -> post("/orders?delayMs=300", key));

        assertThat(app.executions("orders") - before).isEqualTo(1);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409));
        assertThat(responses.stream().filter(r -> r.statusCode() == 201
                && r.headers().firstValue("Idempotent-Replayed").isEmpty())).hasSize(1);
    }

    @Test
    void aStreamedResponseIsKeptWithoutItsBody() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/stream", key);
        HttpResponse<String> retry = post("/stream", key);

        assertThat(first.body()).startsWith("chunk 1 of stream ").endsWith("chunk 3\n");
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
    }

    /** idempotency-spring's health component, whose store check blocks: actuator runs it off the event loop. */
    @Test
    void theStoreIsTheIdempotencyHealthComponent() throws Exception {
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(base.resolve("/actuator/health"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"idempotency\":{\"status\":\"UP\"");
    }

    private static HttpResponse<String> post(String path, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ConformanceHandler.class)
    static class JdbcService {

        /** Where each store call ran: the listener is told on the calling thread. */
        @Bean
        IdempotencyListener storeThreads() {
            return new IdempotencyListener() {
                @Override
                public void onEvent(IdempotencyEvent event) {
                }

                @Override
                public void onStoreCall(StoreCall call) {
                    THREADS.put(Thread.currentThread().getName(), call.operation());
                }
            };
        }
    }
}
