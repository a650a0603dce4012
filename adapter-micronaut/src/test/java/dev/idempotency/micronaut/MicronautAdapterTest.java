package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.InterceptingStore;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.context.ServerRequestContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the shared suite cannot see: Micronaut binding, threads, exceptions, streams and files. */
class MicronautAdapterTest {

    /** Collects the engine's events. */
    static final class EventLog implements IdempotencyListener {
        final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(IdempotencyEvent event) {
            events.add(event);
        }

        List<IdempotencyEvent.Outcome> outcomes(String path) {
            return events.stream().filter(e -> e.path().equals(path)).map(IdempotencyEvent::outcome).toList();
        }
    }

    /**
     * Reads the tenant from the Micronaut request itself, as a resolver taking it from the
     * authenticated principal would; unknown (400) if that request were not available.
     */
    static final class RequestTenants implements TenantResolver {
        @Override
        public Optional<String> resolve(RequestView request) {
            return ServerRequestContext.currentRequest()
                    .map(current -> current.getHeaders().get("X-Tenant", String.class).orElse("public"));
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String WIDGET = "{\"name\":\"bolt\",\"count\":3}";

    private static ApplicationContext context;
    private static URI base;
    private static final List<String> storeCalls = new CopyOnWriteArrayList<>();
    private static Store store;
    private static EventLog log;
    private static AdapterTestController controller;

    @BeforeAll
    static void start() {
        store = new InterceptingStore(new InMemoryStore(),
                operation -> storeCalls.add(operation + "@" + Thread.currentThread().getName()));
        log = new EventLog();
        context = ApplicationContext.builder()
                .properties(Map.of(
                        "micronaut.server.port", -1,
                        "micronaut.server.host", "127.0.0.1",
                        "idempotency.enabled", true,
                        "idempotency.paths", List.of("/widgets", "/reactive", "/stream", "/file", "/attachment",
                                "/out-of-stock", "/execution"),
                        "test.routes", "adapter"))
                .singletons(store, log, new RequestTenants())
                .start();
        EmbeddedServer server = context.getBean(EmbeddedServer.class).start();
        base = URI.create("http://127.0.0.1:" + server.getPort());
        controller = context.getBean(AdapterTestController.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void aPojoBodyStillBindsAndTheReplayIsTheBytesTheServerWouldHaveSent() throws Exception {
        int runsBefore = controller.runs("widgets");
        String key = newKey();
        HttpResponse<byte[]> unfiltered = post("/widgets", null, WIDGET);
        HttpResponse<byte[]> first = post("/widgets", key, WIDGET);
        HttpResponse<byte[]> replay = post("/widgets", key, WIDGET);

        assertThat(first.statusCode()).isEqualTo(201);
        String firstText = new String(first.body(), StandardCharsets.UTF_8);
        assertThat(firstText).contains("\"name\":\"bolt\"", "\"count\":3", "Größe ✓ 中");
        // Same encoding as the server's own: only the id differs.
        String unfilteredText = new String(unfiltered.body(), StandardCharsets.UTF_8);
        assertThat(firstText.replaceFirst("\"id\":\\d+", "\"id\":0"))
                .isEqualTo(unfilteredText.replaceFirst("\"id\":\\d+", "\"id\":0"));
        assertThat(first.headers().firstValue("Content-Type")).isEqualTo(unfiltered.headers().firstValue("Content-Type"));

        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(replay.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(controller.runs("widgets")).as("the unkeyed request and the first keyed one")
                .isEqualTo(runsBefore + 2);
    }

    @Test
    void storeCallsNeverRunOnAnEventLoopThread() throws Exception {
        // A route without @ExecuteOn runs on the event loop: this is what its threads are called.
        String eventLoop = new String(send(HttpRequest.newBuilder(base.resolve("/thread")).GET()).body(),
                StandardCharsets.UTF_8);
        assertThat(eventLoop.toLowerCase(Locale.ROOT)).contains("eventloop");

        String widgetKey = newKey();
        post("/widgets", widgetKey, WIDGET);
        post("/widgets", widgetKey, WIDGET);
        String reactiveKey = newKey();
        assertThat(post("/reactive", reactiveKey, WIDGET).statusCode()).isEqualTo(200);
        assertThat(post("/reactive", reactiveKey, WIDGET).headers().firstValue("Idempotent-Replayed")).hasValue("true");

        List<String> calls = List.copyOf(storeCalls);
        assertThat(calls).anyMatch(c -> c.startsWith("reserve@")).anyMatch(c -> c.startsWith("complete@"));
        assertThat(calls).allSatisfy(call -> assertThat(call.toLowerCase(Locale.ROOT)).doesNotContain("eventloop"));
    }

    @Test
    void aControllerExceptionReachesTheClientAsMappedAndReleasesTheKey() throws Exception {
        String key = newKey();
        HttpResponse<byte[]> first = post("/out-of-stock", key, "{}");
        HttpResponse<byte[]> retry = post("/out-of-stock", key, "{}");

        assertThat(first.statusCode()).isEqualTo(418);
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("{\"error\":\"out of stock\"}");
        assertThat(retry.statusCode()).as("released, so the retry runs again").isEqualTo(418);
        assertThat(controller.runs("out-of-stock")).isEqualTo(2);
        assertThat(log.outcomes("/out-of-stock")).containsExactly(
                IdempotencyEvent.Outcome.EXECUTION_FAILED, IdempotencyEvent.Outcome.EXECUTION_FAILED);
    }

    /**
     * A {@code Publisher} of several items and a {@code StreamedFile} cannot be held: sent, and kept
     * without the body, so the retry is told the request was applied (410) instead of running it.
     */
    @ParameterizedTest
    @CsvSource({"/stream, run %d of a stream", "/file, file run %d"})
    void streamedAndFileResponsesAreSentAndKeptWithoutTheirBody(String path, String bodyOfRun) throws Exception {
        String key = newKey();
        HttpResponse<byte[]> first = post(path, key, "{}");
        HttpResponse<byte[]> retry = post(path, key, "{}");

        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo(bodyOfRun.formatted(1));
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(new String(retry.body(), StandardCharsets.UTF_8)).contains("idempotency_response_not_stored");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(controller.runs(path.substring(1))).isEqualTo(1);
        assertThat(log.outcomes(path)).containsExactly(
                IdempotencyEvent.Outcome.EXECUTED_STORED, IdempotencyEvent.Outcome.REPLAYED);
    }

    /** The filter swaps the file's stream for one it watches; the file's download name stays. */
    @Test
    void aStreamedFileKeepsItsAttachmentName() throws Exception {
        HttpResponse<byte[]> response = post("/attachment", newKey(), "{}");

        assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("an attachment");
        assertThat(response.headers().allValues("Content-Disposition")).singleElement()
                .satisfies(value -> assertThat(value).startsWith("attachment").contains("report.txt"));
    }

    @Test
    void pathsOutsideTheConfiguredPatternsAreNotFiltered() throws Exception {
        String key = newKey();
        post("/elsewhere", key, "{}");
        HttpResponse<byte[]> second = post("/elsewhere", key, "{}");

        assertThat(second.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(new String(second.body(), StandardCharsets.UTF_8)).isEqualTo("{\"run\":2}");
        assertThat(log.outcomes("/elsewhere")).isEmpty();
    }

    @Test
    void aTenantResolverCanReadTheMicronautRequest() throws Exception {
        String key = newKey();
        HttpResponse<byte[]> acme = post("/widgets", key, WIDGET, "X-Tenant", "acme");
        HttpResponse<byte[]> globex = post("/widgets", key, WIDGET, "X-Tenant", "globex");
        HttpResponse<byte[]> acmeAgain = post("/widgets", key, WIDGET, "X-Tenant", "acme");

        assertThat(acme.statusCode()).isEqualTo(201);
        assertThat(globex.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(acmeAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(log.events).anySatisfy(e -> assertThat(e.tenant()).isEqualTo("globex"));
    }

    @Test
    void aControllerCanReachItsExecution() throws Exception {
        String key = newKey();
        assertThat(new String(post("/execution", key, "{}").body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"key\":\"" + key + "\"}");
        assertThat(new String(post("/execution", null, "{}").body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"key\":\"none\"}");
    }

    @Test
    void inTheOptimisticModeATwinsConflictIsReplacedByTheStoredResponse() throws Exception {
        try (ApplicationContext optimistic = ApplicationContext.builder()
                .properties(Map.of(
                        "micronaut.server.port", -1,
                        "micronaut.server.host", "127.0.0.1",
                        "idempotency.enabled", true,
                        "idempotency.mode", "optimistic",
                        "test.routes", "adapter"))
                .start()) {
            URI twinBase = URI.create("http://127.0.0.1:" + optimistic.getBean(EmbeddedServer.class).start().getPort());
            String key = newKey();
            HttpRequest request = HttpRequest.newBuilder(twinBase.resolve("/twin"))
                    .header("Content-Type", "application/json").header("Idempotency-Key", key)
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();

            var first = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
            Thread.sleep(100);
            HttpResponse<byte[]> twin = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());

            assertThat(first.get().statusCode()).isEqualTo(201);
            assertThat(twin.statusCode()).as("the twin's 409, replaced by the stored 201").isEqualTo(201);
            assertThat(twin.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(twin.body()).isEqualTo(first.get().body());
            assertThat(optimistic.getBean(AdapterTestController.class).runs("twin")).isEqualTo(2);
        }
    }

    private static HttpResponse<byte[]> post(String path, String key, String body, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request);
    }

    private static HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String newKey() {
        return "key-" + UUID.randomUUID();
    }
}
