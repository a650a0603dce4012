package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.InMemoryStore;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import org.glassfish.jersey.message.GZipEncoder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.filter.EncodingFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The optimistic mode's late replay: a resource that answers 409 because a twin with its key
 * finished first has its response replaced by the twin's stored one — with an entity (in the
 * writer interceptor, encoded as the request asks) and without (in the response filter).
 */
class LateReplayTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final AtomicInteger IDS = new AtomicInteger();
    private static volatile CountDownLatch twinDone;
    private static volatile CountDownLatch slowStarted;

    private static IdempotencyEngine engine;
    private static JerseyServer server;

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create(@HeaderParam("X-Slow") String slow, @HeaderParam("X-Conflict") String conflict)
                throws InterruptedException {
            if (slow == null) {
                return Response.status(201).type("application/json")
                        .entity("{\"id\":" + IDS.incrementAndGet() + "}").build();
            }
            slowStarted.countDown();
            assertThat(twinDone.await(10, TimeUnit.SECONDS)).isTrue();
            return "empty".equals(conflict) ? Response.status(409).build()
                    : Response.status(409).type("application/json").entity("{\"error\":\"duplicate\"}").build();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().mode(Mode.OPTIMISTIC).build());
        ResourceConfig app = new ResourceConfig(Orders.class).register(IdempotencyFeature.of(engine));
        EncodingFilter.enableFor(app, GZipEncoder.class);
        server = JerseyServer.start(app);
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    @BeforeEach
    void latches() {
        twinDone = new CountDownLatch(1);
        slowStarted = new CountDownLatch(1);
    }

    private static HttpRequest post(String key, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.baseUri().resolve("/orders"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request.build();
    }

    private static void check(String conflict, boolean gzip) throws Exception {
        String key = "key-" + UUID.randomUUID();
        HttpRequest slowRequest = gzip ? post(key, "X-Slow", "true", "X-Conflict", conflict, "Accept-Encoding", "gzip")
                : post(key, "X-Slow", "true", "X-Conflict", conflict);
        CompletableFuture<HttpResponse<byte[]>> slow = HTTP.sendAsync(slowRequest, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> twin = HTTP.send(post(key), HttpResponse.BodyHandlers.ofString());
        twinDone.countDown();
        HttpResponse<byte[]> late = slow.get(10, TimeUnit.SECONDS);

        assertThat(twin.statusCode()).isEqualTo(201);
        assertThat(late.statusCode()).isEqualTo(201);
        byte[] body = late.body();
        if (gzip) {
            assertThat(late.headers().firstValue("Content-Encoding")).hasValue("gzip");
            body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
        }
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo(twin.body());
        assertThat(late.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(late.headers().firstValue("Content-Type")).hasValue("application/json");
    }

    @Test
    void a409WithAnEntityIsReplacedByTheTwinsResponse() throws Exception {
        check("entity", false);
    }

    @Test
    void aGzipped409IsReplacedByTheTwinsResponseGzipped() throws Exception {
        check("entity", true);
    }

    @Test
    void a409WithoutAnEntityIsReplacedByTheTwinsResponse() throws Exception {
        check("empty", false);
    }
}
