package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.MutableClock;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Coverage by configuration ({@code paths}) and by {@link Idempotent}, with a resource's own
 * {@code keyRequired} and {@code ttl}, on one Jersey server.
 */
class IdempotentResourcesTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
    /** The ids {@code covered/{id}} received, as Jersey decoded them. */
    private static final Queue<String> IDS = new ConcurrentLinkedQueue<>();
    private static final MutableClock CLOCK = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    private static IdempotencyEngine engine;
    private static IdempotencyFeature feature;
    private static JerseyServer server;

    static Response ran(String route) {
        int run = RUNS.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
        return Response.status(201).entity("{\"route\":\"" + route + "\",\"run\":" + run + "}")
                .type("application/json").build();
    }

    @Path("/")
    public static class Resources {
        @POST
        @Path("covered/{id}")
        public Response covered(@PathParam("id") String id) {
            IDS.add(id);
            return ran("covered");
        }

        @POST
        @Path("elsewhere")
        public Response elsewhere() {
            return ran("elsewhere");
        }

        @POST
        @Path("required")
        @Idempotent(keyRequired = true)
        public Response required() {
            return ran("required");
        }

        @POST
        @Path("short")
        @Idempotent(ttl = "PT1M")
        public Response shortLived() {
            return ran("short");
        }

        @PUT
        @Path("put")
        @Idempotent
        public Response put() {
            return ran("put");
        }
    }

    @Path("/strict")
    @Idempotent(keyRequired = true)
    public static class Strict {
        @POST
        public Response strict() {
            return ran("strict");
        }

        @POST
        @Path("lenient")
        @Idempotent
        public Response lenient() {
            return ran("lenient");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        InMemoryStore store = new InMemoryStore();
        engine = new IdempotencyEngine(store, IdempotencyConfig.builder().clock(CLOCK).build());
        feature = IdempotencyFeature.builder(engine).store(store).paths("/covered/*").build();
        server = JerseyServer.start(new ResourceConfig(Resources.class, Strict.class).register(feature));
    }

    @AfterAll
    static void stop() {
        server.close();
        feature.close();
        engine.close();
    }

    private static HttpResponse<String> send(String method, String path, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.baseUri().resolve(path))
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString("{\"n\":1}"));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String key) throws Exception {
        return send("POST", path, key);
    }

    private static boolean replayed(HttpResponse<String> response) {
        return response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    private static String code(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body()).path("code").asText();
    }

    private static int runs(String route) {
        return RUNS.computeIfAbsent(route, r -> new AtomicInteger()).get();
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    @Test
    void aPathMatchingThePatternsIsCoveredAndAnotherIsNot() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/covered/1", key);
        HttpResponse<String> retry = post("/covered/1", key);
        post("/elsewhere", key);
        HttpResponse<String> elsewhere = post("/elsewhere", key);

        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(replayed(elsewhere)).isFalse();
        assertThat(elsewhere.body()).contains("\"route\":\"elsewhere\"");
    }

    /** {@code +} and {@code %2B} reach the resource as one id: one record, the re-spelled retry replays. */
    @Test
    void spellingsThatGiveTheResourceOneIdAreOneRecord() throws Exception {
        int before = runs("covered");
        String key = key();
        IDS.clear();
        HttpResponse<String> first = post("/covered/a+b", key);
        HttpResponse<String> respelled = post("/covered/a%2Bb", key);
        HttpResponse<String> other = post("/covered/a%2B%21b", key);
        HttpResponse<String> otherRespelled = post("/covered/a+!b", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(respelled)).as("/covered/a%2Bb after /covered/a+b").isTrue();
        assertThat(respelled.body()).isEqualTo(first.body());
        assertThat(replayed(other)).isFalse();
        assertThat(replayed(otherRespelled)).as("/covered/a+!b after /covered/a%2B%21b").isTrue();
        assertThat(IDS).containsExactly("a+b", "a+!b");
        assertThat(runs("covered")).isEqualTo(before + 2);
    }

    @Test
    void aKeyedRequestWhosePathCarriesParametersIsRefused() throws Exception {
        int before = runs("covered");
        HttpResponse<String> keyed = post("/covered/4;v=2", key());
        HttpResponse<String> keyless = post("/covered/4;v=2", null);

        assertThat(keyed.statusCode()).isEqualTo(400);
        assertThat(code(keyed)).isEqualTo("idempotency_path_invalid");
        assertThat(JSON.readTree(keyed.body()).path("detail").asText()).startsWith("Path parameters (;name=value)");
        assertThat(keyless.statusCode()).as("without a key the resource runs as usual").isEqualTo(201);
        assertThat(runs("covered")).isEqualTo(before + 1);
    }

    @Test
    void anIdempotentResourceRequiresItsKeyWhereTheEngineDoesNot() throws Exception {
        int before = runs("required");
        HttpResponse<String> missing = post("/required", null);
        HttpResponse<String> elsewhere = post("/covered/2", null);

        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(code(missing)).isEqualTo("idempotency_key_missing");
        assertThat(runs("required")).isEqualTo(before);
        assertThat(elsewhere.statusCode()).as("the engine's own setting: no key passes through").isEqualTo(201);

        String key = key();
        post("/required", key);
        assertThat(replayed(post("/required", key))).isTrue();
        assertThat(runs("required")).isEqualTo(before + 1);
    }

    @Test
    void anIdempotentResourceKeepsItsRecordsForItsOwnTtl() throws Exception {
        String shortKey = key();
        String longKey = key();
        post("/short", shortKey);
        post("/covered/3", longKey);
        assertThat(replayed(post("/short", shortKey))).isTrue();

        CLOCK.advance(Duration.ofMinutes(2));
        HttpResponse<String> afterTtl = post("/short", shortKey);
        HttpResponse<String> engineTtl = post("/covered/3", longKey);

        assertThat(replayed(afterTtl)).as("its one-minute record expired: runs again").isFalse();
        assertThat(afterTtl.statusCode()).isEqualTo(201);
        assertThat(replayed(engineTtl)).as("the engine's 24 h still hold").isTrue();
    }

    @Test
    void anIdempotentResourceIsCoveredWhateverItsHttpMethod() throws Exception {
        String key = key();
        HttpResponse<String> first = send("PUT", "/put", key);
        HttpResponse<String> retry = send("PUT", "/put", key);

        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(first.body());
    }

    @Test
    void theAnnotationOnAMethodWinsOverTheOneOnItsClass() throws Exception {
        HttpResponse<String> strict = post("/strict", null);
        HttpResponse<String> lenient = post("/strict/lenient", null);

        assertThat(strict.statusCode()).isEqualTo(400);
        assertThat(code(strict)).isEqualTo("idempotency_key_missing");
        assertThat(lenient.statusCode()).isEqualTo(201);
    }

    @Path("/bad")
    public static class BadTtl {
        @POST
        @Idempotent(ttl = "1 hour")
        public Response create() {
            return ran("bad");
        }
    }

    @Test
    void aTtlThatIsNoDurationFailsTheStartNamingTheResource() {
        IdempotencyFeature bad = IdempotencyFeature.builder(engine).store(new InMemoryStore()).build();
        assertThatThrownBy(() -> JerseyServer.start(new ResourceConfig(BadTtl.class).register(bad)))
                .hasStackTraceContaining("@Idempotent(ttl = \"1 hour\") on " + BadTtl.class.getName() + ".create");
    }

    @Test
    void settingsOfTheirOwnNeedTheStore() {
        IdempotencyFeature withoutStore = IdempotencyFeature.of(engine);
        assertThatThrownBy(() -> JerseyServer.start(new ResourceConfig(Resources.class).register(withoutStore)))
                .hasStackTraceContaining("builder.store");
    }
}
