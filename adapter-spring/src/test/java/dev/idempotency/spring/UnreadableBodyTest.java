package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A keyed request whose body cannot be read — it ends before its {@code Content-Length}, or its
 * chunked framing is broken — is the client's fault: 400 in the engine's problem style, logged at
 * DEBUG without a stack trace, over real embedded Tomcat. No key: Spring MVC's own 400.
 */
class UnreadableBodyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ConformanceServer server;
    private static ConformanceApp app;
    private static URI base;

    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Logger filterLog = (Logger) LoggerFactory.getLogger(IdempotencyFilter.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private Level filterLevel;

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

    @BeforeEach
    void captureLogs() {
        filterLevel = filterLog.getLevel();
        filterLog.setLevel(Level.DEBUG);
        logs.start();
        root.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        root.detachAppender(logs);
        filterLog.setLevel(filterLevel);
    }

    private static byte[] request(String framing, String key) {
        return ("POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + (key == null ? "" : "Idempotency-Key: " + key + "\r\n") + framing)
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String framing(String kind) {
        return switch (kind) {
            case "short" -> "Content-Length: 100\r\n\r\n{\"item\":\"book\"";
            case "bad-chunk" -> "Transfer-Encoding: chunked\r\n\r\nzz\r\n{\"item\":\"book\"}\r\n0\r\n\r\n";
            default -> throw new IllegalArgumentException(kind);
        };
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"short", "bad-chunk"})
    void aKeyedRequestWithAnUnreadableBodyIsA400ProblemAndNoError(String kind) throws Exception {
        int before = app.executions("orders");

        RawResponse response = RawHttp.send(base, request(framing(kind), UUID.randomUUID().toString()));

        assertThat(response.status()).as(response.toString()).isEqualTo(400);
        assertThat(response.header("Content-Type")).as(response.toString()).hasValue("application/problem+json");
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.path("status").asInt()).isEqualTo(400);
        assertThat(problem.path("code").asText()).isEqualTo("idempotency_request_body_unreadable");
        assertThat(problem.path("type").asText()).endsWith("idempotency_request_body_unreadable");
        assertThat(problem.path("detail").asText()).doesNotContain("Exception", "book");
        assertThat(app.executions("orders")).as("the handler did not run").isEqualTo(before);
        Thread.sleep(200); // anything Tomcat logs after the response
        assertThat(logs.list).as("logged at ERROR").noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR));
        assertThat(logs.list).filteredOn(e -> e.getLoggerName().equals(IdempotencyFilter.class.getName()))
                .as("the filter's DEBUG line").isNotEmpty()
                .allMatch(e -> e.getLevel() == Level.DEBUG && e.getThrowableProxy() == null);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"short", "bad-chunk"})
    void withoutAKeySpringMvcAnswers400Itself(String kind) throws Exception {
        RawResponse response = RawHttp.send(base, request(framing(kind), null));

        assertThat(response.status()).as(response.toString()).isEqualTo(400);
    }
}
