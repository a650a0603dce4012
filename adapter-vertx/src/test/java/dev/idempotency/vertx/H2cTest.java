package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 over cleartext with real HTTP/2 clients: replays work, and the pseudo-headers that the
 * server keeps in an HTTP/2 response's header map ({@code :status} once the head is out) are
 * never captured, stored or replayed.
 */
class H2cTest {

    private static final List<CapturedResponse> captured = new CopyOnWriteArrayList<>();
    private static final AtomicInteger runs = new AtomicInteger();
    private static Vertx vertx;
    private static InMemoryStore store;
    private static IdempotencyEngine engine;
    private static IdempotencyHandler idempotency;
    private static HttpServer server;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        store = new InMemoryStore();
        ReplayPolicy recording = response -> {
            captured.add(response);
            return ReplayPolicy.defaults().isStorable(response);
        };
        engine = new IdempotencyEngine(store, IdempotencyConfig.builder().replayPolicy(recording).build());
        idempotency = IdempotencyHandler.create(vertx, engine);
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create()).handler(idempotency);
        router.post("/orders").handler(ctx -> {
            int n = runs.incrementAndGet();
            // The head goes out before the end, so :status is in the map when the body is copied.
            ctx.response().setStatusCode(201).setChunked(true)
                    .putHeader("Content-Type", "application/json").putHeader("Location", "/orders/" + n);
            ctx.response().writeHead();
            ctx.response().end("{\"id\":" + n + ",\"status\":\"created\"}");
        });
        server = ConformanceRoutes.listen(vertx, idempotency, router);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void vertxClientWithPriorKnowledge() throws Exception {
        HttpClientAgent client = vertx.createHttpClient(new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
        try {
            String key = "h2-" + UUID.randomUUID();
            Reply first = post(client, key);
            Reply second = post(client, key);

            assertThat(first.version).isEqualTo(HttpVersion.HTTP_2);
            assertThat(first.status).isEqualTo(201);
            assertThat(first.replayed).isNull();
            assertThat(second.version).isEqualTo(HttpVersion.HTTP_2);
            assertThat(second.status).isEqualTo(201);
            assertThat(second.replayed).isEqualTo("true");
            assertThat(second.body).isEqualTo(first.body);
            assertThat(second.location).isEqualTo(first.location);
            assertNoPseudoHeaders(key);
        } finally {
            client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void jdkClientUpgradingToH2c() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        URI uri = URI.create("http://127.0.0.1:" + server.actualPort() + "/orders");
        // The JDK client asks for the h2c upgrade on its first request to a host; later ones use HTTP/2.
        http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.discarding());
        String key = "h2-" + UUID.randomUUID();
        HttpRequest post = HttpRequest.newBuilder(uri).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build();

        HttpResponse<String> first = http.send(post, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> second = http.send(post, HttpResponse.BodyHandlers.ofString());

        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(second.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertNoPseudoHeaders(key);
    }

    private static void assertNoPseudoHeaders(String key) {
        assertThat(captured).isNotEmpty();
        assertThat(captured).allSatisfy(response ->
                assertThat(response.headers().keySet()).noneMatch(name -> name.startsWith(":")));
        IdempotencyRecord record = store.find(new RecordKey("default", "POST", "/orders", key), Instant.now())
                .orElseThrow();
        assertThat(record.response().headers().keySet()).noneMatch(name -> name.startsWith(":"))
                .anyMatch(name -> name.equalsIgnoreCase("Location"));
    }

    private record Reply(HttpVersion version, int status, String replayed, String location, String body) {
    }

    private static Reply post(HttpClientAgent client, String key) throws Exception {
        return client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                        .setPort(server.actualPort()).setURI("/orders").putHeader("Idempotency-Key", key)
                        .putHeader("Content-Type", "application/json"))
                .compose(request -> request.send(Buffer.buffer("{\"item\":\"book\"}")))
                .compose(response -> response.body().map(body -> reply(response, body)))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Reply reply(HttpClientResponse response, Buffer body) {
        return new Reply(response.version(), response.statusCode(), response.getHeader("Idempotent-Replayed"),
                response.getHeader("Location"), body.toString());
    }
}
