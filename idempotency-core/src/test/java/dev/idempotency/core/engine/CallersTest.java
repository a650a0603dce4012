package dev.idempotency.core.engine;

import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** One caller's key never replays another caller's response, unless records are shared on purpose. */
class CallersTest {

    private static final String KEY = "key-0123456789";
    private static final String BODY = "{\"item\":\"book\"}";

    private final InMemoryStore store = new InMemoryStore();
    private final AtomicInteger runs = new AtomicInteger();
    private final Logger logger = (Logger) LoggerFactory.getLogger(IdempotencyEngine.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private IdempotencyEngine engine;

    @BeforeEach
    void capture() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void close() {
        logger.detachAppender(logs);
        if (engine != null) {
            engine.close();
        }
    }

    private void start(UnaryOperator<IdempotencyConfig.Builder> settings) {
        engine = new IdempotencyEngine(store, settings.apply(IdempotencyConfig.builder()).build());
    }

    /** Sends the request as {@code principal} (null: anonymous); a handler run answers "order N for P". */
    private Decision.Respond send(String principal, String body) {
        RequestView plain = RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(KEY)), body.getBytes(StandardCharsets.UTF_8));
        RequestView request = new RequestView() {
            @Override
            public String method() {
                return plain.method();
            }

            @Override
            public String path() {
                return plain.path();
            }

            @Override
            public List<String> headers(String name) {
                return plain.headers(name);
            }

            @Override
            public byte[] body() {
                return plain.body();
            }

            @Override
            public Optional<String> principalName() {
                return Optional.ofNullable(principal);
            }
        };
        Decision decision = engine.before(request);
        if (decision instanceof Decision.Proceed proceed) {
            byte[] answer = ("order " + runs.incrementAndGet() + " for " + principal).getBytes(StandardCharsets.UTF_8);
            proceed.execution().finish(CapturedResponse.of(201, Map.of(), answer));
            return new Decision.Respond(new HttpReply(201, Map.of(), answer), null);
        }
        return (Decision.Respond) decision;
    }

    private static String text(Decision.Respond respond) {
        return new String(respond.reply().body(), StandardCharsets.UTF_8);
    }

    @Test
    void eachCallerGetsItsOwnRecordAndItsOwnReplay() {
        start(UnaryOperator.identity());

        assertThat(text(send("alice", BODY))).isEqualTo("order 1 for alice");
        assertThat(text(send("bob", BODY))).isEqualTo("order 2 for bob");
        assertThat(text(send(null, BODY))).isEqualTo("order 3 for null");
        Decision.Respond aliceAgain = send("alice", BODY);
        Decision.Respond bobAgain = send("bob", BODY);
        Decision.Respond anonymousAgain = send(null, BODY);

        assertThat(runs).hasValue(3);
        assertThat(aliceAgain.isReplay()).isTrue();
        assertThat(text(aliceAgain)).isEqualTo("order 1 for alice");
        assertThat(text(bobAgain)).isEqualTo("order 2 for bob");
        assertThat(text(anonymousAgain)).isEqualTo("order 3 for null");
    }

    @Test
    void anotherCallersKeyWithAnotherBodyIsNoConflict() {
        start(UnaryOperator.identity());

        send("alice", BODY);
        Decision.Respond bob = send("bob", "{\"item\":\"pen\"}");

        assertThat(bob.reply().status()).isEqualTo(201);
        assertThat(runs).hasValue(2);
    }

    @Test
    void theStoreHoldsAHashOfTheCallerNeverItsName() {
        start(UnaryOperator.identity());

        send("alice", BODY);

        RecordKey filed = new RecordKey("default", RecordKey.callerOf("alice"), "POST", "/orders", KEY);
        assertThat(store.find(filed, Instant.now())).isPresent();
        assertThat(RecordKey.callerOf("alice")).hasSize(32).doesNotContain("alice");
        assertThat(store.find(new RecordKey("default", "POST", "/orders", KEY), Instant.now())).isEmpty();
    }

    @Test
    void aCallerResolverOfTheApplicationsOwnReplacesThePrincipal() {
        start(c -> c.callerResolver(request -> Optional.of("same-account")));

        send("alice", BODY);
        Decision.Respond bob = send("bob", BODY);

        assertThat(bob.isReplay()).isTrue();
        assertThat(text(bob)).isEqualTo("order 1 for alice");
    }

    @Test
    void aFailingCallerResolverRefusesTheRequestAndRunsNothing() {
        start(c -> c.callerResolver(request -> {
            throw new IllegalStateException("directory down");
        }));

        Decision.Respond refused = send("alice", BODY);

        assertThat(refused.reply().status()).isEqualTo(403);
        assertThat(refused.reply().headers().get("Content-Type")).containsExactly("application/problem+json");
        assertThat(text(refused)).contains("idempotency_caller_unknown").contains("CallerResolver failed")
                .doesNotContain("directory down");
        assertThat(runs).hasValue(0);
    }

    @Test
    void anAuthenticatedCallerWithoutAUsableNameIsRefusedNeverAnonymous() {
        start(UnaryOperator.identity());
        Decision.Respond anonymous = send(null, BODY);

        for (String blank : List.of("", " ", "\t")) {
            Decision.Respond refused = send(blank, BODY);

            assertThat(refused.reply().status()).as("%s", blank).isEqualTo(403);
            assertThat(refused.isReplay()).isFalse();
            assertThat(text(refused)).contains("\"code\":\"idempotency_caller_unknown\"")
                    .contains("IdempotencyConfig.Builder#callerResolver");
        }
        assertThat(runs).as("only the anonymous request ran").hasValue(1);
        assertThat(text(anonymous)).isEqualTo("order 1 for null");
        assertThat(warnings()).as("logged once, not per request").hasSize(1)
                .allSatisfy(w -> assertThat(w).contains("idempotency_caller_unknown"));
    }

    @Test
    void aResolversBlankNameIsRefusedToo() {
        start(c -> c.callerResolver(request -> Optional.of("")));

        assertThat(send("alice", BODY).reply().status()).isEqualTo(403);
        assertThat(runs).hasValue(0);
    }

    @Test
    void namesKeepTheHashTheyWereFiledUnderBefore() {
        assertThat(RecordKey.callerOf("alice")).isEqualTo("2bd806c97f0e00af1a1fc3328fa763a9");
    }

    @Test
    void recordsSharedAcrossCallersReplayOneCallersResponseToAnotherWithOneWarningAtStart() {
        start(c -> c.shareRecordsAcrossCallers(true));
        List<String> atStart = warnings();

        send("alice", BODY);
        Decision.Respond bob = send("bob", BODY);
        Decision.Respond anonymous = send(null, BODY);

        assertThat(runs).hasValue(1);
        assertThat(text(bob)).isEqualTo("order 1 for alice");
        assertThat(text(anonymous)).isEqualTo("order 1 for alice");
        assertThat(atStart).hasSize(1).allSatisfy(w -> assertThat(w).contains("shared across callers"));
        assertThat(warnings()).as("nothing more per request").hasSize(1);
    }

    @Test
    void callersOwnRecordsLogNothing() {
        start(UnaryOperator.identity());

        send("alice", BODY);

        assertThat(warnings()).isEmpty();
    }

    private List<String> warnings() {
        return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }
}
