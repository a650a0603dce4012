package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.PathSpellingChecks;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What Reactor Netty and WebFlux (Spring Boot 4.0.7, default settings) do with odd spellings of a
 * path — pinned, so that an upgrade that changes it shows here — and that the auto-configured
 * filter files every spelling WebFlux sends to one handler under one record.
 */
class WebFluxRoutingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] BODY = PathSpellingChecks.BODY.getBytes(StandardCharsets.UTF_8);

    private static IdempotencyEngine engine;
    private static ConformanceApp app;
    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        app = new ConformanceApp();
        SpringApplication application = new SpringApplication(WebFluxConformanceTest.ConformanceService.class);
        application.addInitializers(c -> {
            c.getBeanFactory().registerSingleton("conformanceApp", (Supplier<ConformanceApp>) () -> app);
            c.getBeanFactory().registerSingleton("idempotencyEngine", engine);
        });
        context = application.run("--server.port=0", "--server.address=127.0.0.1", "--idempotency.enabled=true",
                "--idempotency.paths=" + String.join(",", WebFluxConformanceTest.PATHS));
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        context.close();
        engine.close();
    }

    private static RawResponse post(String target, String key) throws Exception {
        return RawHttp.post(base, target, key == null ? null : key.getBytes(StandardCharsets.US_ASCII), BODY);
    }

    /** Without a key the filter lets everything through: this is Reactor Netty's and WebFlux's own routing. */
    @ParameterizedTest(name = "POST {0} -> {1} {2}")
    @CsvSource(delimiter = '|', textBlock = """
            /orders              | 201 | orders
            /orders/             | 404 | -
            //orders             | 404 | -
            /./orders            | 404 | -
            /x/../orders         | 404 | -
            /%2E/orders          | 404 | -
            /orders/.            | 200 | order-item .
            /orders/..           | 200 | order-item ..
            /%6frders            | 201 | orders
            /orders;x            | 201 | orders
            /orders;x=1;y        | 201 | orders
            /orders/b%75lk       | 200 | bulk
            /orders/bulk;v=2     | 200 | bulk
            /orders/%21          | 200 | order-item !
            /orders/!            | 200 | order-item !
            /orders%2F           | 404 | -
            /orders/a%2Fb        | 200 | order-item a/b
            /orders#x            | 201 | orders
            /orders/%zz          | 400 | -
            /ORDERS              | 404 | -
            """)
    void webFluxRoutesSpellingsSo(String target, int status, String handler) throws Exception {
        RawResponse response = post(target, null);
        assertThat(response.status()).as(response.bodyText()).isEqualTo(status);
        if (handler.equals("-")) {
            return;
        }
        JsonNode json = JSON.readTree(response.body());
        String[] ran = handler.split(" ", 2);
        if (ran[0].equals("orders")) {
            assertThat(json.path("status").asText()).isEqualTo("created");
        } else {
            assertThat(json.path("handler").asText()).isEqualTo(ran[0]);
        }
        if (ran.length == 2) {
            assertThat(json.path("orderId").asText()).isEqualTo(ran[1]);
        }
    }

    @Test
    void spellingsWebFluxSendsToOneHandlerShareItsRecord() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = app.executions("orders");
        RawResponse first = post("/%6frders", key);
        RawResponse escaped = post("/%6Frders", key);
        RawResponse canonical = post("/orders", key);

        assertThat(first.status()).isEqualTo(201);
        assertThat(first.replayed()).isFalse();
        assertThat(escaped.replayed()).isTrue();
        assertThat(canonical.replayed()).isTrue();
        assertThat(canonical.bodyText()).isEqualTo(first.bodyText());
        assertThat(app.executions("orders")).isEqualTo(before + 1);
    }

    /** Reactor Netty hands {@code /orders/a%2Fb} to {@code /orders/{id}} with id {@code a/b}: a record of its own. */
    @Test
    void anEncodedSlashInASegmentIsARecordOfItsOwn() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = app.executions("order-item");
        RawResponse first = post("/orders/a%2Fb", key);
        RawResponse again = post("/orders/a%2Fb", key);
        RawResponse other = post("/orders/a", key);

        assertThat(JSON.readTree(first.body()).path("orderId").asText()).isEqualTo("a/b");
        assertThat(again.replayed()).isTrue();
        assertThat(again.bodyText()).isEqualTo(first.bodyText());
        assertThat(other.replayed()).isFalse();
        assertThat(app.executions("order-item")).isEqualTo(before + 2);
    }

    @ParameterizedTest(name = "POST {0} under a key -> 400 idempotency_path_invalid")
    @CsvSource({"/orders/", "/orders#x", "/orders#/../payments", "/orders/.", "//orders", "/orders;x", "/orders;x=1;y"})
    void spellingsThatNameNoRecordAreRefusedUnderAKey(String target) throws Exception {
        int before = app.executions("orders") + app.executions("order-item") + app.executions("payments");
        RawResponse refused = post(target, UUID.randomUUID().toString());

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(JSON.readTree(refused.body()).path("code").asText()).isEqualTo("idempotency_path_invalid");
        assertThat(app.executions("orders") + app.executions("order-item") + app.executions("payments")).isEqualTo(before);
    }
}
