package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.testkit.CallerChecks;
import dev.idempotency.testkit.TokenIssuer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.authentication.AuthenticationFailureReason;
import io.micronaut.security.authentication.AuthenticationRequest;
import io.micronaut.security.authentication.AuthenticationResponse;
import io.micronaut.security.authentication.provider.HttpRequestAuthenticationProvider;
import io.micronaut.security.rules.SecuredAnnotationRule;
import io.micronaut.security.rules.SecurityRule;
import io.micronaut.security.rules.SecurityRuleResult;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.slf4j.LoggerFactory;

/**
 * Each authenticated caller's records are its own, with micronaut-security's basic auth, the filter
 * at its default order and no caller setting: {@link CallerChecks}, where the records are filed, and
 * what {@code idempotency.share-records-across-callers} gives up.
 */
class CallerSeparationTest {

    private static final String ALICE = "alice:secret";
    private static final String BOB = "bob:secret";
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";
    private static final TokenIssuer ISSUER_A = new TokenIssuer("https://a.example", "issuer A's secret, long enough for HS256");
    private static final TokenIssuer ISSUER_B = new TokenIssuer("https://b.example", "issuer B's secret, long enough for HS256");
    private static final List<Logger> WATCHED = List.of(
            (Logger) LoggerFactory.getLogger(IdempotencyEngineFactory.class),
            (Logger) LoggerFactory.getLogger(IdempotencyEngine.class));

    /**
     * Credentials that do not authenticate are refused (401) rather than served as anonymous, which
     * micronaut-security's basic auth does on a route that allows anonymous requests.
     */
    @jakarta.inject.Singleton
    @Requires(property = "test.routes", value = "callers")
    static final class WrongCredentialsRule implements SecurityRule<io.micronaut.http.HttpRequest<?>> {
        @Override
        public Publisher<SecurityRuleResult> check(@Nullable io.micronaut.http.HttpRequest<?> request,
                                                   @Nullable Authentication authentication) {
            boolean wrong = authentication == null && request != null
                    && request.getHeaders().getAuthorization().isPresent();
            return Publishers.just(wrong ? SecurityRuleResult.REJECTED : SecurityRuleResult.UNKNOWN);
        }

        @Override
        public int getOrder() {
            return SecuredAnnotationRule.ORDER - 100;
        }
    }

    /** A user micronaut-security authenticates with an empty name: {@code nameless:secret}. */
    @jakarta.inject.Singleton
    @Requires(property = "test.routes", value = "callers")
    static final class Nameless implements HttpRequestAuthenticationProvider<Object> {
        @Override
        public AuthenticationResponse authenticate(@Nullable io.micronaut.http.HttpRequest<Object> request,
                                                   AuthenticationRequest<String, String> auth) {
            return "nameless".equals(auth.getIdentity()) && "secret".equals(auth.getSecret())
                    ? AuthenticationResponse.success("")
                    : AuthenticationResponse.failure(AuthenticationFailureReason.USER_NOT_FOUND);
        }
    }

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private ApplicationContext context;
    private InMemoryStore store;
    private URI base;
    private CallerOrdersController orders;

    private void start(Map<String, Object> settings) {
        store = new InMemoryStore();
        Map<String, Object> properties = new HashMap<>(Map.of(
                "micronaut.server.port", -1,
                "micronaut.server.host", "127.0.0.1",
                "micronaut.security.enabled", true,
                "idempotency.enabled", true,
                "idempotency.paths", List.of("/caller-orders"),
                "test.routes", "callers"));
        properties.putAll(settings);
        context = ApplicationContext.builder().properties(properties).singletons(store).start();
        EmbeddedServer server = context.getBean(EmbeddedServer.class).start();
        base = URI.create("http://127.0.0.1:" + server.getPort());
        orders = context.getBean(CallerOrdersController.class);
    }

    @BeforeEach
    void watchLogs() {
        logs.start();
        WATCHED.forEach(logger -> logger.addAppender(logs));
    }

    @AfterEach
    void stop() {
        WATCHED.forEach(logger -> logger.detachAppender(logs));
        if (context != null) {
            context.close();
        }
    }

    @Test
    void twoCallersOneKeyEachGetTheirOwn() throws Exception {
        start(Map.of());
        CallerChecks.twoCallersOneKeyEachGetTheirOwn(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    @Test
    void concurrentCallersOneKeyRunOncePerCaller() throws Exception {
        start(Map.of());
        CallerChecks.concurrentCallersOneKeyRunOncePerCaller(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    @Test
    void anotherCallersKeyTellsNothing() throws Exception {
        start(Map.of());
        CallerChecks.anotherCallersKeyTellsNothing(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    @Test
    void anonymousNeverReplaysAuthenticated() throws Exception {
        start(Map.of());
        CallerChecks.anonymousNeverReplaysAuthenticated(this::post, () -> orders.runs.get(), ALICE);
    }

    @Test
    void aRecordIsFiledUnderItsCallersHashAndAnAnonymousOneUnderNoCaller() throws Exception {
        start(Map.of());
        String aliceKey = UUID.randomUUID().toString();
        String anonymousKey = UUID.randomUUID().toString();

        assertThat(post(ALICE, aliceKey, BODY).statusCode()).isEqualTo(201);
        HttpResponse<String> anonymous = post(null, anonymousKey, BODY);

        assertThat(anonymous.body()).contains("\"caller\":\"anonymous\"");
        assertThat(found("alice", aliceKey)).isTrue();
        assertThat(found(null, aliceKey)).isFalse();
        assertThat(found(null, anonymousKey)).isTrue();
        assertThat(logs.list).as("nothing shared, nothing to warn about").isEmpty();
    }

    @Test
    void anEmptyNameIsRefusedNeverAnonymous() throws Exception {
        start(Map.of());
        CallerChecks.unidentifiedCallerIsRefused(this::post, () -> orders.runs.get(), "nameless:secret");
    }

    /**
     * micronaut-security-jwt verifying two issuers' signatures: one subject at each is two callers.
     * A token without {@code sub} never reaches the filter: micronaut-security-jwt does not
     * authenticate it (its subject-not-null validator, and the name it takes from {@code sub}).
     */
    @Test
    void bearerTokensAreFiledByIssuerAndSubject() throws Exception {
        start(Map.of(
                "micronaut.security.token.jwt.signatures.secret.a.secret", ISSUER_A.secret(),
                "micronaut.security.token.jwt.signatures.secret.a.jws-algorithm", "HS256",
                "micronaut.security.token.jwt.signatures.secret.b.secret", ISSUER_B.secret(),
                "micronaut.security.token.jwt.signatures.secret.b.jws-algorithm", "HS256"));
        CallerChecks.Post bearer = CallerChecks.authorizationPost(base.resolve("/caller-orders"));

        CallerChecks.oneSubjectAtTwoIssuersIsTwoCallers(bearer, () -> orders.runs.get(),
                ISSUER_A.bearer(Map.of("sub", "alice")), ISSUER_B.bearer(Map.of("sub", "alice")));
        CallerChecks.wrongCredentialsReserveNothing(bearer, () -> orders.runs.get(),
                ISSUER_A.bearer(Map.of("client_id", "billing")), ISSUER_A.bearer(Map.of("sub", "billing")));
    }

    @Test
    void wrongCredentialsAre401AndReserveNothing() throws Exception {
        start(Map.of());
        CallerChecks.wrongCredentialsReserveNothing(this::post, () -> orders.runs.get(), "alice:guess", ALICE);
    }

    @Test
    void sharedAcrossCallersBobGetsAlicesReplayAndTheRiskIsLoggedAtStart() throws Exception {
        start(Map.of("idempotency.share-records-across-callers", true));
        List<String> atStart = warnings();

        CallerChecks.sharedRecordsReplayOneCallersAnswerToAnother(this::post, () -> orders.runs.get(), ALICE, BOB);

        assertThat(atStart).as("the engine's warning, before any request").hasSize(1)
                .allMatch(message -> message.contains("shared across callers"));
        assertThat(warnings()).as("and nothing more per request").hasSize(1);
        assertThat(logs.list).noneMatch(e -> e.getFormattedMessage().matches("(?s).*(alice|bob).*"));
    }

    private List<String> warnings() {
        return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    private boolean found(String caller, String key) {
        RecordKey recordKey = new RecordKey("default", caller == null ? RecordKey.ANONYMOUS : RecordKey.callerOf(caller),
                "POST", "/caller-orders", key);
        return store.find(recordKey, Instant.now()).isPresent();
    }

    private HttpResponse<String> post(String credentials, String key, String body) throws Exception {
        return CallerChecks.basicAuthPost(base.resolve("/caller-orders")).send(credentials, key, body);
    }
}
