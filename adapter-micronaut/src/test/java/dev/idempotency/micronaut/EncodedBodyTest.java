package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.ConformanceApp;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Micronaut's server decompresses request bodies itself and drops the {@code Content-Encoding}
 * header, so the engine sees the content once, never decoding it a second time: a document sent
 * plain and gzip-compressed is one request.
 */
class EncodedBodyTest {

    @Test
    void aDocumentSentPlainAndGzipCompressedIsOneRequest() throws Exception {
        byte[] order = "{\"item\":\"book\",\"quantity\":2}".getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
            gzip.write(order);
        }
        ConformanceApp app = new ConformanceApp();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
             ApplicationContext context = ApplicationContext.builder()
                     .properties(Map.of("micronaut.server.port", -1, "micronaut.server.host", "127.0.0.1",
                             "idempotency.enabled", true, "idempotency.paths", List.of("/orders"),
                             "test.routes", "conformance"))
                     .singletons(engine, app)
                     .start()) {
            EmbeddedServer server = context.getBean(EmbeddedServer.class).start();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String key = UUID.randomUUID().toString();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getPort() + "/orders"))
                    .header("Content-Type", "application/json").header("Idempotency-Key", key);

            HttpResponse<String> plain = http.send(request.copy().POST(HttpRequest.BodyPublishers.ofByteArray(order))
                    .build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> compressed = http.send(request.copy().header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(gzipped.toByteArray())).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(plain.statusCode()).isEqualTo(201);
            assertThat(compressed.headers().firstValue("Idempotent-Replayed")).as(compressed.body()).hasValue("true");
            assertThat(compressed.body()).isEqualTo(plain.body());
            assertThat(app.executions("orders")).isEqualTo(1);
        }
    }
}
