package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.internal.AtOnce;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Responses that end after the controller method returned, over real HTTP: the key stays reserved
 * until the response has really ended, a captured one is replayed, a streamed one is kept without
 * its body (a retry gets 410), and streaming still streams.
 */
class LateResponsesTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ApplicationContext context;
    private static URI base;
    private static LateResponsesController controller;

    @BeforeAll
    static void start() {
        context = ApplicationContext.builder()
                .properties(Map.of(
                        "micronaut.server.port", -1,
                        "micronaut.server.host", "127.0.0.1",
                        "idempotency.enabled", true,
                        "test.routes", "late"))
                .start();
        base = URI.create("http://127.0.0.1:" + context.getBean(EmbeddedServer.class).start().getPort());
        controller = context.getBean(LateResponsesController.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"future", "mono"})
    void anAsynchronousResultRunsOnceForTwentyDuplicatesAndIsReplayedByteForByte(String route) throws Exception {
        String key = newKey();
        int before = controller.runs(route);
        List<HttpResponse<byte[]>> responses = concurrently(20, "/" + route + "?delayMs=1000", key);
        HttpResponse<byte[]> retry = post("/" + route + "?delayMs=1000", key);

        assertThat(controller.runs(route)).isEqualTo(before + 1);
        List<HttpResponse<byte[]>> originals = responses.stream().filter(r -> !replayed(r)).filter(
                r -> r.statusCode() < 300).toList();
        assertThat(originals).hasSize(1);
        assertThat(JSON.readTree(originals.get(0).body()).path("via").asText()).isEqualTo(route);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(originals.get(0).statusCode(), 409));
        assertThat(retry.statusCode()).isEqualTo(originals.get(0).statusCode());
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(originals.get(0).body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chunks", "events", "file"})
    void aStreamRunsOnceForTwentyDuplicatesAndALaterRetryIsToldItWasApplied(String route) throws Exception {
        String key = newKey();
        int before = controller.runs(route);
        List<HttpResponse<byte[]>> responses = concurrently(20, "/" + route + "?delayMs=1000", key);
        HttpResponse<byte[]> retry = post("/" + route + "?delayMs=1000", key);

        assertThat(controller.runs(route)).isEqualTo(before + 1);
        List<HttpResponse<byte[]>> originals = responses.stream().filter(r -> r.statusCode() == 200).toList();
        assertThat(originals).hasSize(1);
        assertThat(new String(originals.get(0).body(), StandardCharsets.UTF_8)).contains("2");
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).as("in flight, then kept").isIn(200, 409, 410));
        assertNotStored(retry);
    }

    /**
     * While the handler's stream still runs, its first chunk has reached the client and the key is
     * still in flight: a duplicate gets 409, not yet 410.
     */
    @ParameterizedTest
    @ValueSource(strings = {"chunks", "events", "file"})
    void aStreamIsSentAsItComesAndItsKeyIsHeldUntilItEnds(String route) throws Exception {
        String key = newKey();
        String gate = "gate-" + key;
        int before = controller.runs(route);
        HttpResponse<InputStream> first = HTTP.send(request("/" + route + "?gate=" + gate, key),
                HttpResponse.BodyHandlers.ofInputStream());
        InputStream body = first.body();
        String firstChunk = CompletableFuture.supplyAsync(() -> readLine(body)).get(10, TimeUnit.SECONDS);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(firstChunk).contains("1 of");
        HttpResponse<byte[]> duringTheStream = post("/" + route + "?gate=" + gate, key);
        assertThat(duringTheStream.statusCode()).as("still in flight").isEqualTo(409);

        controller.open(gate);
        String rest = new String(body.readAllBytes(), StandardCharsets.UTF_8);
        assertThat(rest).contains("2");
        assertNotStored(post("/" + route + "?gate=" + gate, key));
        assertThat(controller.runs(route)).isEqualTo(before + 1);
    }

    @Test
    void aStreamThatFailsReleasesItsKey() throws Exception {
        String key = newKey();
        int before = controller.runs("broken");
        HttpResponse<byte[]> first = sendTolerantly(key);
        HttpResponse<byte[]> retry = sendTolerantly(key);

        assertThat(first == null ? "broken off" : String.valueOf(first.statusCode())).isIn("broken off", "500");
        assertThat(retry == null ? "broken off" : String.valueOf(retry.statusCode())).as("run again, not 410")
                .isIn("broken off", "500");
        assertThat(controller.runs("broken")).isEqualTo(before + 2);
    }

    /** The client hangs up in the middle of the stream: the handler did answer, so it is not run again. */
    @Test
    void aStreamTheClientLeavesIsKeptAsApplied() throws Exception {
        String key = newKey();
        String gate = "gate-" + key;
        HttpResponse<InputStream> first = HTTP.send(request("/chunks?gate=" + gate, key),
                HttpResponse.BodyHandlers.ofInputStream());
        try {
            InputStream body = first.body();
            assertThat(CompletableFuture.supplyAsync(() -> readLine(body)).get(10, TimeUnit.SECONDS)).contains("1 of");
            int runs = controller.runs("chunks");
            body.close();

            // The server learns of it when the connection closes: in flight until then.
            HttpResponse<byte[]> retry = post("/chunks?gate=" + gate, key);
            for (int i = 0; i < 200 && retry.statusCode() == 409; i++) {
                Thread.sleep(50);
                retry = post("/chunks?gate=" + gate, key);
            }
            assertNotStored(retry);
            assertThat(controller.runs("chunks")).isEqualTo(runs);
        } finally {
            controller.open(gate);
        }
    }

    /** The broken stream's response, or null when the server broke the connection off mid-body. */
    private static HttpResponse<byte[]> sendTolerantly(String key) throws InterruptedException {
        try {
            return post("/broken", key);
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static void assertNotStored(HttpResponse<byte[]> retry) throws Exception {
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(replayed(retry)).isTrue();
        assertThat(JSON.readTree(retry.body()).path("code").asText()).isEqualTo("idempotency_response_not_stored");
    }

    private static String readLine(InputStream in) {
        try {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                line.append((char) c);
            }
            return line.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<HttpResponse<byte[]>> concurrently(int n, String path, String key) throws Exception {
        return AtOnce.run(n, () -> post(path, key));
    }

    private static HttpRequest request(String path, String key) {
        return HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
    }

    private static HttpResponse<byte[]> post(String path, String key) throws java.io.IOException, InterruptedException {
        return HTTP.send(request(path, key), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    private static String newKey() {
        return "key-" + UUID.randomUUID();
    }
}
