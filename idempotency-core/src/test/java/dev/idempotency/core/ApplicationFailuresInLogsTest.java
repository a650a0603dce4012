package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.store.InMemoryStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What the engine logs when application code it calls throws: the exception's class and stack
 * trace, never its message (nor its causes'), which may quote a key, a body or a credential.
 */
class ApplicationFailuresInLogsTest {

    private static final String SECRET = "secret-token-4711";

    private final Logger logger = (Logger) LoggerFactory.getLogger(IdempotencyEngine.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void capture() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void release() {
        logger.detachAppender(logs);
    }

    private static RuntimeException failure() {
        return new IllegalStateException("bad " + SECRET, new IllegalArgumentException("cause " + SECRET));
    }

    private String run(UnaryOperator<IdempotencyConfig.Builder> settings) {
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                settings.apply(IdempotencyConfig.builder()).build())) {
            Decision decision = engine.before(RequestView.of("POST", "/orders",
                    Map.of("Content-Type", List.of("application/json"), "Idempotency-Key", List.of("key-0123456789")),
                    "{}".getBytes(StandardCharsets.UTF_8)));
            if (decision instanceof Decision.Proceed proceed) {
                proceed.execution().finish(CapturedResponse.of(201, Map.of(), new byte[0]));
            }
        }
        assertThat(logs.list).as("the failure is logged").isNotEmpty();
        return logs.list.stream()
                .map(e -> e.getFormattedMessage() + "\n" + ThrowableProxyUtil.asString(e.getThrowableProxy()))
                .collect(Collectors.joining("\n"));
    }

    @Test
    void aFailingListenerIsLoggedWithoutItsMessage() {
        String logged = run(c -> c.listener(event -> {
            throw failure();
        }));

        assertThat(logged).contains("IllegalStateException", "IllegalArgumentException", "ApplicationFailuresInLogsTest")
                .doesNotContain(SECRET);
    }

    @Test
    void aFailingCallerResolverIsLoggedWithoutItsMessage() {
        String logged = run(c -> c.callerResolver(request -> {
            throw failure();
        }));

        assertThat(logged).contains("IllegalStateException").doesNotContain(SECRET);
    }

    @Test
    void aFailingTenantResolverIsLoggedWithoutItsMessage() {
        String logged = run(c -> c.tenantResolver(request -> {
            throw failure();
        }));

        assertThat(logged).contains("IllegalStateException").doesNotContain(SECRET);
    }

    @Test
    void aFailingReplayPolicyIsLoggedWithoutItsMessage() {
        String logged = run(c -> c.replayPolicy(response -> {
            throw failure();
        }));

        assertThat(logged).contains("IllegalStateException").doesNotContain(SECRET);
    }
}
