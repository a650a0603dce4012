package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.ConformanceApp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tomcat hands a compressed request body over as it came, so the engine decodes it to fingerprint
 * it: one document sent plain, gzip- or deflate-compressed is one request; a coding the engine does
 * not decode is 415, a body that inflates past the limit 413.
 */
class EncodedBodyTest {

    private static final byte[] ORDER = "{\"item\":\"book\",\"quantity\":2}".getBytes(StandardCharsets.UTF_8);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ConformanceServer server;
    private static ConformanceApp app;
    private static URI base;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() {
        server = ConformanceServer.start();
        app = server.app();
        base = server.base();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private HttpResponse<String> post(String key, String encoding, byte[] body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (encoding != null) {
            request.header("Content-Encoding", encoding);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] gzip(byte[] content) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(content);
        }
        return out.toByteArray();
    }

    private static byte[] deflate(byte[] content) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream deflate = new DeflaterOutputStream(out)) {
            deflate.write(content);
        }
        return out.toByteArray();
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    @Test
    void oneDocumentSentPlainGzipOrDeflateIsOneRequest() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = app.executions("orders");

        HttpResponse<String> plain = post(key, null, ORDER);
        HttpResponse<String> gzipped = post(key, "gzip", gzip(ORDER));
        HttpResponse<String> deflated = post(key, "deflate", deflate(ORDER));

        assertThat(plain.statusCode()).isEqualTo(201);
        assertThat(replayed(gzipped)).as(gzipped.statusCode() + " " + gzipped.body()).isTrue();
        assertThat(replayed(deflated)).as(deflated.statusCode() + " " + deflated.body()).isTrue();
        assertThat(gzipped.body()).isEqualTo(plain.body());
        assertThat(app.executions("orders")).isEqualTo(before + 1);
    }

    @Test
    void aCodingTheEngineDoesNotDecodeIs415AndAZipBomb413() throws Exception {
        int before = app.executions("orders");

        HttpResponse<String> brotli = post(UUID.randomUUID().toString(), "br", ORDER);
        HttpResponse<String> bomb = post(UUID.randomUUID().toString(), "gzip", gzip(new byte[20 << 20]));

        assertThat(brotli.statusCode()).isEqualTo(415);
        assertThat(brotli.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JSON.readTree(brotli.body()).path("code").asText()).isEqualTo("idempotency_content_encoding_unsupported");
        assertThat(bomb.statusCode()).isEqualTo(413);
        assertThat(JSON.readTree(bomb.body()).path("code").asText()).isEqualTo("idempotency_request_too_large");
        assertThat(app.executions("orders")).isEqualTo(before);
    }
}
