package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.store.InMemoryStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bodies are fingerprinted on their content, whatever Content-Encoding they were sent in. */
class ContentEncodingTest {

    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
            IdempotencyConfig.builder().maxRequestBodyBytes(64 * 1024).listener(events::add).build());

    @AfterEach
    void close() {
        engine.close();
    }

    static byte[] gzip(byte[] content) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(content);
        }
        return out.toByteArray();
    }

    static byte[] deflate(byte[] content, boolean zlib) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream deflate = new DeflaterOutputStream(out, new Deflater(Deflater.DEFAULT_COMPRESSION, !zlib))) {
            deflate.write(content);
        }
        return out.toByteArray();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private Decision send(String key, String encoding, byte[] body) {
        Map<String, List<String>> headers = new HashMap<>();
        headers.put("Content-Type", List.of("application/json"));
        headers.put("Idempotency-Key", List.of(key));
        if (encoding != null) {
            headers.put("Content-Encoding", List.of(encoding));
        }
        return engine.before(RequestView.of("POST", "/orders", headers, body));
    }

    private void runAndStore(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        ((Decision.Proceed) decision).execution().finish(CapturedResponse.of(201,
                Map.of("Content-Type", List.of("application/json")), utf8("{\"id\":1}")));
    }

    private static JsonNode problem(Decision decision, int status) throws IOException {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        HttpReply reply = ((Decision.Respond) decision).reply();
        assertThat(reply.status()).isEqualTo(status);
        assertThat(reply.header("Content-Type")).isEqualTo(Problem.MEDIA_TYPE);
        return JSON.readTree(reply.body());
    }

    private static boolean replayed(Decision decision) {
        return decision instanceof Decision.Respond respond && respond.isReplay();
    }

    @Test
    void oneDocumentInEveryEncodingIsOneRequest() throws Exception {
        runAndStore(send("k1", null, utf8(ORDER)));

        assertThat(replayed(send("k1", "gzip", gzip(utf8(ORDER))))).as("gzip").isTrue();
        assertThat(replayed(send("k1", "x-gzip", gzip(utf8(ORDER))))).as("x-gzip").isTrue();
        assertThat(replayed(send("k1", "deflate", deflate(utf8(ORDER), true)))).as("deflate (zlib)").isTrue();
        assertThat(replayed(send("k1", "deflate", deflate(utf8(ORDER), false)))).as("raw deflate").isTrue();
        assertThat(replayed(send("k1", "Identity", utf8(ORDER)))).as("identity").isTrue();
        assertThat(replayed(send("k1", "deflate, GZIP", gzip(deflate(utf8(ORDER), true))))).as("stacked").isTrue();
        assertThat(replayed(send("k1", "gzip", gzip(utf8("{ \"quantity\": 2, \"item\": \"book\" }")))))
                .as("canonicalized after decoding").isTrue();
    }

    @Test
    void anotherDocumentCompressedIsStillAnotherRequest() throws Exception {
        runAndStore(send("k1", "gzip", gzip(utf8(ORDER))));

        assertThat(problem(send("k1", "gzip", gzip(utf8("{\"item\":\"pen\",\"quantity\":2}"))), 422)
                .path("code").asText()).isEqualTo("idempotency_key_conflict");
    }

    @Test
    void aBodyThatInflatesPastTheLimitIs413() throws Exception {
        byte[] bomb = gzip(new byte[10 * 1024 * 1024]);
        assertThat(bomb.length).isLessThan(64 * 1024);

        JsonNode problem = problem(send("k1", "gzip", bomb), 413);

        assertThat(problem.path("code").asText()).isEqualTo("idempotency_request_too_large");
        assertThat(problem.path("detail").asText()).contains("once decoded");
    }

    @Test
    void aCodingTheEngineDoesNotDecodeIs415() throws Exception {
        JsonNode problem = problem(send("k1", "br", utf8(ORDER)), 415);

        assertThat(problem.path("code").asText()).isEqualTo("idempotency_content_encoding_unsupported");
        assertThat(problem.path("type").asText()).isEqualTo("urn:idempotency:problem:idempotency_content_encoding_unsupported");
        assertThat(problem(send("k2", "gzip, zstd", utf8(ORDER)), 415).path("status").asInt()).isEqualTo(415);
        assertThat(events).extracting(IdempotencyEvent::problemCode)
                .containsOnly("idempotency_content_encoding_unsupported");
    }

    /** A filter that decoded the body but left the header: the content is not decoded twice. */
    @Test
    void aBodyThatDoesNotDecodeAsItsHeaderSaysIsTakenAsItCame() {
        runAndStore(send("k1", null, utf8(ORDER)));

        assertThat(replayed(send("k1", "gzip", utf8(ORDER)))).isTrue();
        assertThat(replayed(send("k1", "deflate", utf8(ORDER)))).isTrue();
    }
}
