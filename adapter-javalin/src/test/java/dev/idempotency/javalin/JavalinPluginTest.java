package dev.idempotency.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.InMemoryStore;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the shared suite does not reach: Javalin-specific ways a response comes about. */
class JavalinPluginTest {

    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";

    public record NewOrder(String item, int quantity) {
    }

    private final HttpClient http = HttpClient.newHttpClient();
    private final InMemoryStore store = new InMemoryStore();
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private IdempotencyEngine engine;
    private Javalin server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
        if (engine != null) {
            engine.close();
        }
    }

    /** Starts Javalin with the plugin covering {@code paths} (all when none) and the given routes. */
    private void start(Consumer<JavalinConfig> routes, String... paths) {
        engine = new IdempotencyEngine(store, IdempotencyConfig.builder()
                .listener(event -> outcomes.add(event.outcome())).build());
        server = Javalin.create(cfg -> {
            cfg.registerPlugin(new IdempotencyPlugin(engine, paths));
            routes.accept(cfg);
        }).start("127.0.0.1", 0);
    }

    private HttpResponse<String> post(String path, String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String newKey() {
        return "key-" + UUID.randomUUID();
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    @Test
    void aBodyOverJavalinsMaxRequestSizeGetsTheEngines413Problem() throws Exception {
        start(cfg -> cfg.routes.post("/orders", ctx -> {
            runs.incrementAndGet();
            ctx.status(201).result(ctx.body());
        }));
        // Over Javalin's default maxRequestSize (1,000,000 bytes), under the engine's 1 MiB.
        String body = "{\"note\":\"" + "x".repeat(1_000_100) + "\"}";

        HttpResponse<String> response = post("/orders", newKey(), body);

        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).contains("\"code\":\"idempotency_request_too_large\"");
        assertThat(outcomes).containsExactly(Outcome.REJECTED);
        assertThat(runs).hasValue(0);
        assertThat(store.size()).isZero();
    }

    @Test
    void anEndpointThatThrowsFailsTheExecutionWhenTheExceptionIsMappedToANon2xx() throws Exception {
        start(cfg -> {
            cfg.routes.post("/orders", ctx -> {
                runs.incrementAndGet();
                throw new IllegalArgumentException("no stock");
            });
            cfg.routes.exception(IllegalArgumentException.class, (e, ctx) -> ctx.status(422).json(Map.of("ok", false)));
        });
        String key = newKey();

        HttpResponse<String> first = post("/orders", key, ORDER);
        HttpResponse<String> second = post("/orders", key, ORDER);

        assertThat(first.statusCode()).isEqualTo(422);
        assertThat(first.body()).isEqualTo("{\"ok\":false}");
        assertThat(replayed(second)).isFalse();
        assertThat(runs).hasValue(2);
        assertThat(outcomes).containsExactly(Outcome.EXECUTION_FAILED, Outcome.EXECUTION_FAILED);
        assertThat(store.size()).isZero();
    }

    @Test
    void directWritesToTheOutputStreamAreSentAndKeptWithoutTheirBody() throws Exception {
        start(cfg -> cfg.routes.post("/orders", ctx -> {
            ctx.status(201).contentType("application/json").header("Location", "/orders/" + runs.incrementAndGet());
            ctx.outputStream().write(("{\"run\":" + runs.get() + "}").getBytes(StandardCharsets.UTF_8));
        }));
        String key = newKey();

        HttpResponse<String> first = post("/orders", key, ORDER);
        HttpResponse<String> second = post("/orders", key, ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("{\"run\":1}");
        assertNotStored(second, "/orders/1");
        assertThat(runs).hasValue(1);
        assertThat(outcomes).containsExactly(Outcome.EXECUTED_STORED, Outcome.REPLAYED);
    }

    /** The after handler never ran, so the body was not seen; the headers were, once the response ended. */
    @Test
    void anEndpointThatSkipsTheRemainingHandlersIsKeptWithoutItsBody() throws Exception {
        start(cfg -> cfg.routes.post("/orders", ctx -> {
            int run = runs.incrementAndGet();
            ctx.status(201).header("Location", "/orders/" + run).result("run " + run);
            ctx.skipRemainingHandlers();
        }));
        String key = newKey();

        assertThat(post("/orders", key, ORDER).body()).isEqualTo("run 1");
        HttpResponse<String> second = post("/orders", key, ORDER);

        assertNotStored(second, "/orders/1");
        assertThat(runs).hasValue(1);
    }

    /** A retry of a success kept without its body: 410 with the original's Location, not run again. */
    private static void assertNotStored(HttpResponse<String> retry, String location) {
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(retry.body()).contains("\"code\":\"idempotency_response_not_stored\"");
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Location")).hasValue(location);
    }

    @Test
    void pathsNotCoveredAreUntouched() throws Exception {
        start(cfg -> {
            cfg.routes.post("/orders", ctx -> ctx.status(201).result("order " + runs.incrementAndGet()));
            cfg.routes.post("/webhooks", ctx -> ctx.result("hook " + runs.incrementAndGet()
                    + " execution=" + IdempotencyPlugin.execution(ctx).isPresent()));
        }, "/orders");
        String key = newKey();

        HttpResponse<String> first = post("/webhooks", key, ORDER);
        HttpResponse<String> second = post("/webhooks", key, ORDER);

        assertThat(first.body()).isEqualTo("hook 1 execution=false");
        assertThat(second.body()).isEqualTo("hook 2 execution=false");
        assertThat(outcomes).isEmpty();
        assertThat(store.size()).isZero();

        post("/orders", key, ORDER);
        assertThat(replayed(post("/orders", key, ORDER))).isTrue();
    }

    @Test
    void javalinsOwn404And405LeaveNoRecord() throws Exception {
        start(cfg -> cfg.routes.get("/orders", ctx -> ctx.result("list")));

        assertThat(post("/nowhere", newKey(), ORDER).statusCode()).isEqualTo(404);
        assertThat(post("/orders", newKey(), ORDER).statusCode()).isIn(404, 405);

        assertThat(outcomes).isEmpty();
        assertThat(store.size()).isZero();
    }

    @Test
    void theEndpointStillReadsTheBodyEveryWay() throws Exception {
        start(cfg -> cfg.routes.post("/orders", ctx -> {
            NewOrder order = ctx.bodyAsClass(NewOrder.class);
            String streamed = new String(ctx.bodyInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean underKey = IdempotencyPlugin.execution(ctx).isPresent();
            ctx.status(201).json(Map.of("item", order.item(), "quantity", order.quantity(),
                    "body", ctx.body(), "streamed", streamed, "underKey", underKey));
        }));

        HttpResponse<String> response = post("/orders", newKey(), ORDER);

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).contains("\"item\":\"book\"", "\"quantity\":2", "\"underKey\":true")
                .contains("\"streamed\":\"" + ORDER.replace("\"", "\\\"") + "\"")
                .contains("\"body\":\"" + ORDER.replace("\"", "\\\"") + "\"");
    }

    @Test
    void theExecutionIsOnlyThereForRequestsUnderAKey() throws Exception {
        start(cfg -> cfg.routes.post("/orders", ctx -> ctx.result(
                IdempotencyPlugin.execution(ctx).map(e -> e.key().keyPreview()).orElse("none"))));

        assertThat(post("/orders", "abcdefgh-123", ORDER).body()).isEqualTo("abcd…");
        assertThat(post("/orders", null, ORDER).body()).isEqualTo("none");
    }

    @Test
    void anAsynchronousEndpointIsCapturedWhenItsFutureCompletes() throws Exception {
        start(cfg -> cfg.routes.post("/orders", ctx -> ctx.future(() -> CompletableFuture
                .supplyAsync(() -> "order " + runs.incrementAndGet())
                .thenAccept(result -> ctx.status(201).result(result)))));
        String key = newKey();

        HttpResponse<String> first = post("/orders", key, ORDER);
        HttpResponse<String> retry = post("/orders", key, ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo("order 1");
        assertThat(runs).hasValue(1);
    }
}
