package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.PathSpellingChecks;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What embedded Tomcat 11 and Spring MVC 7 (Spring Boot 4.0.7, default settings) do with odd
 * spellings of a path — pinned, so that an upgrade that changes it shows here — and that the
 * filter files every spelling Spring MVC sends to one handler under one record.
 */
class SpringRoutingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] BODY = PathSpellingChecks.BODY.getBytes(StandardCharsets.UTF_8);

    private static ConformanceServer server;
    private static ConformanceApp app;
    private static URI base;

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

    private static RawResponse post(String target, String key) throws Exception {
        return RawHttp.post(base, target, key == null ? null : key.getBytes(StandardCharsets.US_ASCII), BODY);
    }

    /** Without a key the filter lets everything through: this is Tomcat's and Spring MVC's own routing. */
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
            /orders%2F           | 400 | -
            /orders/a%2Fb        | 400 | -
            /orders#x            | 400 | -
            /orders/%zz          | 400 | -
            /ORDERS              | 404 | -
            """)
    void springMvcRoutesSpellingsSo(String target, int status, String handler) throws Exception {
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

    /**
     * Spring MVC matches {@code /orders;x=1} to {@code /orders} and hands the handler the parameter
     * ({@code @MatrixVariable}), which the record's path leaves out: refused under a key, so that
     * {@code ;x=1} and {@code ;x=2} never share a record and a fingerprint.
     */
    @ParameterizedTest(name = "POST {0} under a key -> 400")
    @CsvSource({"/orders;x", "/orders;x=1;y", "/orders/bulk;v=2", "/;x/orders"})
    void pathParametersAreRefusedUnderAKey(String target) throws Exception {
        int before = app.executions("orders") + app.executions("bulk");
        RawResponse refused = post(target, UUID.randomUUID().toString());
        assertThat(refused.status()).isEqualTo(400);
        JsonNode problem = JSON.readTree(refused.body());
        assertThat(problem.path("code").asText()).isEqualTo("idempotency_path_invalid");
        assertThat(problem.path("detail").asText()).contains("Path parameters");
        assertThat(app.executions("orders") + app.executions("bulk")).isEqualTo(before);
    }

    @Test
    void escapesThatSpringMvcDecodesShareTheRecord() throws Exception {
        String other = UUID.randomUUID().toString();
        int before = app.executions("order-item");
        RawResponse bang = post("/orders/!", other);
        RawResponse escaped = post("/orders/%21", other);
        assertThat(bang.status()).isEqualTo(200);
        assertThat(escaped.replayed()).isTrue();
        assertThat(escaped.bodyText()).isEqualTo(bang.bodyText());
        assertThat(app.executions("order-item")).isEqualTo(before + 1);

        String third = UUID.randomUUID().toString();
        int bulkBefore = app.executions("bulk");
        RawResponse decoded = post("/orders/b%75lk", third);
        RawResponse literal = post("/orders/bulk", third);
        assertThat(decoded.status()).isEqualTo(200);
        assertThat(JSON.readTree(decoded.body()).path("handler").asText()).isEqualTo("bulk");
        assertThat(literal.replayed()).isTrue();
        assertThat(literal.bodyText()).isEqualTo(decoded.bodyText());
        assertThat(app.executions("bulk")).isEqualTo(bulkBefore + 1);
    }

    @Test
    void aTrailingSlashUnderAKeyIsRefusedWithAProblemDocument() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = app.executions("orders");
        RawResponse refused = post("/orders/", key);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(JSON.readTree(refused.body()).path("type").asText()).endsWith("idempotency_path_invalid");
        RawResponse canonical = post("/orders", key);
        assertThat(canonical.status()).isEqualTo(201);
        assertThat(canonical.replayed()).isFalse();
        assertThat(app.executions("orders")).isEqualTo(before + 1);
    }

    @ParameterizedTest(name = "POST {0} under a key -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            //orders      | empty segment
            /orders/.     | dot segment
            """)
    void aRefusedPathIsAnsweredWithItsOwnReason(String target, String reason) throws Exception {
        RawResponse refused = post(target, UUID.randomUUID().toString());
        assertThat(refused.status()).isEqualTo(400);
        JsonNode problem = JSON.readTree(refused.body());
        assertThat(problem.path("code").asText()).isEqualTo("idempotency_path_invalid");
        assertThat(problem.path("detail").asText()).contains(reason).doesNotContain("fragment");
    }
}
