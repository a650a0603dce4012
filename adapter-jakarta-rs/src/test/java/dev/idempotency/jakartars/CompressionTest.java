package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import org.glassfish.jersey.message.GZipEncoder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.filter.EncodingFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With Jersey's gzip encoding on, the engine stores the entity as the resource's writer wrote it,
 * and each answer is encoded for the request it answers: a retry that accepts gzip gets the stored
 * bytes compressed, one that does not gets them as they are.
 */
class CompressionTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static IdempotencyEngine engine;
    private static JerseyServer server;

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create() {
            return Response.status(201).type("application/json")
                    .entity("{\"order\":" + RUNS.incrementAndGet() + ",\"note\":\"" + "x".repeat(200) + "\"}").build();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        ResourceConfig app = new ResourceConfig(Orders.class).register(IdempotencyFeature.of(engine));
        EncodingFilter.enableFor(app, GZipEncoder.class);
        server = JerseyServer.start(app);
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    private static HttpResponse<byte[]> post(String key, boolean gzip) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.baseUri().resolve("/orders"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        if (gzip) {
            request.header("Accept-Encoding", "gzip");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> response) throws IOException {
        boolean gzipped = response.headers().firstValue("Content-Encoding").filter("gzip"::equals).isPresent();
        byte[] body = gzipped ? new GZIPInputStream(new ByteArrayInputStream(response.body())).readAllBytes()
                : response.body();
        return new String(body, StandardCharsets.UTF_8);
    }

    @Test
    void eachAnswerIsEncodedForItsOwnRequest() throws Exception {
        String key = "key-" + UUID.randomUUID();
        HttpResponse<byte[]> first = post(key, true);
        HttpResponse<byte[]> gzipRetry = post(key, true);
        HttpResponse<byte[]> plainRetry = post(key, false);

        assertThat(first.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(gzipRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(gzipRetry.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(text(gzipRetry)).isEqualTo(text(first)).startsWith("{\"order\":1,");
        assertThat(plainRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(plainRetry.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(new String(plainRetry.body(), StandardCharsets.UTF_8)).isEqualTo(text(first));
        assertThat(RUNS.get()).isEqualTo(1);
    }
}
