package dev.idempotency.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.testkit.CallerChecks;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.UnauthorizedResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.eclipse.jetty.ee10.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.SecurityHandler;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Records are filed per caller: by default under the Jetty request's user principal (Jetty's own
 * Basic authentication, no resolver configured); with the README's one-line resolver, under the
 * attribute an authenticating {@code before} handler set. Anonymous requests reach the route too.
 */
class CallerFromAuthenticationTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";

    private final AtomicInteger runs = new AtomicInteger();
    private final InMemoryStore store = new InMemoryStore();
    private IdempotencyEngine engine;
    private Javalin app;

    private void start(IdempotencyConfig config, Consumer<JavalinConfig> authentication) {
        engine = new IdempotencyEngine(store, config);
        app = Javalin.create(cfg -> {
            authentication.accept(cfg);
            cfg.registerPlugin(new IdempotencyPlugin(engine, "/orders"));
            cfg.routes.post("/orders", CallerFromAuthenticationTest.this::create);
        }).start("127.0.0.1", 0);
    }

    /** Shows the caller either authentication found: Jetty's principal, or the before handler's attribute. */
    private void create(Context ctx) {
        Principal principal = ctx.req().getUserPrincipal();
        String user = ctx.attribute("user");
        String caller = principal != null ? principal.getName() : user != null ? user : "anonymous";
        ctx.status(201).json(Map.of("order", runs.incrementAndGet(), "caller", caller));
    }

    @AfterEach
    void stop() {
        app.stop();
        engine.close();
    }

    /**
     * The test kit's caller checks, as alice and bob with credentials of one kind ({@code wrong}:
     * refused; {@code nameless}: authenticated with an empty name, {@code null} where the
     * authentication cannot give one).
     */
    abstract class Checks {

        private final String alice;
        private final String bob;
        private final String wrong;
        private final String nameless;

        Checks(String alice, String bob, String wrong, String nameless) {
            this.alice = alice;
            this.bob = bob;
            this.wrong = wrong;
            this.nameless = nameless;
        }

        @Test
        void twoCallersOneKeyEachGetTheirOwn() throws Exception {
            CallerChecks.twoCallersOneKeyEachGetTheirOwn(CallerFromAuthenticationTest.this::post, runs::get, alice, bob);
        }

        @Test
        void concurrentCallersOneKeyRunOncePerCaller() throws Exception {
            CallerChecks.concurrentCallersOneKeyRunOncePerCaller(CallerFromAuthenticationTest.this::post, runs::get, alice,
                    bob);
        }

        @Test
        void anotherCallersKeyTellsNothing() throws Exception {
            CallerChecks.anotherCallersKeyTellsNothing(CallerFromAuthenticationTest.this::post, runs::get, alice, bob);
        }

        @Test
        void anonymousNeverReplaysAuthenticated() throws Exception {
            CallerChecks.anonymousNeverReplaysAuthenticated(CallerFromAuthenticationTest.this::post, runs::get, alice);
        }

        @Test
        void wrongCredentialsAre401AndReserveNothing() throws Exception {
            CallerChecks.wrongCredentialsReserveNothing(CallerFromAuthenticationTest.this::post, runs::get, wrong, alice);
        }

        /** Only where the authentication can give an empty name (Jetty's Basic refuses one with 401). */
        @TestFactory
        Stream<DynamicTest> anEmptyNameIsRefusedNeverAnonymous() {
            return Stream.ofNullable(nameless).map(credentials -> dynamicTest("an empty name", () ->
                    CallerChecks.unidentifiedCallerIsRefused(CallerFromAuthenticationTest.this::post, runs::get,
                            credentials)));
        }
    }

    /** Jetty's Basic authentication sets {@code getUserPrincipal()}; the default resolver reads it. */
    @Nested
    class JettyPrincipal extends Checks {

        private static final String ALICE = basic("alice", "alice-pw");

        JettyPrincipal() {
            // Jetty's Basic authentication refuses an empty user name (401) before any principal exists
            super(ALICE, basic("bob", "bob-pw"), basic("alice", "wrong"), null);
        }

        @BeforeEach
        void start() {
            CallerFromAuthenticationTest.this.start(IdempotencyConfig.builder().build(),
                    cfg -> cfg.jetty.modifyServletContextHandler(handler -> handler.setSecurityHandler(basicWhenGiven())));
        }

        @Test
        void recordsAreFiledUnderThePrincipalsName() throws Exception {
            assertThat(post(ALICE, "k-alice", BODY).body()).contains("\"caller\":\"alice\"");

            assertThat(store.find(new RecordKey("default", RecordKey.callerOf("alice"), "POST", "/orders", "k-alice"),
                    Instant.now())).isPresent();
        }

    }

    /** The application's own before handler authenticates; the README's one-line resolver reads its attribute. */
    @Nested
    class BeforeHandlerAttribute extends Checks {

        private static final Map<String, String> USERS_BY_TOKEN = Map.of("token-alice", "alice", "token-bob", "bob",
                "token-nameless", "");
        private static final String BOB = "Bearer token-bob";

        BeforeHandlerAttribute() {
            super("Bearer token-alice", BOB, "Bearer token-x", "Bearer token-nameless");
        }

        @BeforeEach
        void start() {
            // --- as in README.md, "Callers"
            IdempotencyConfig config = IdempotencyConfig.builder()
                    .callerResolver(view -> view.unwrap(Context.class).map(ctx -> ctx.attribute("user")))
                    .build();
            // ---
            CallerFromAuthenticationTest.this.start(config, cfg -> cfg.routes.before("/orders", ctx -> {
                String header = ctx.header("Authorization");
                if (header == null) {
                    return;                                   // anonymous: no "user" attribute
                }
                String user = header.startsWith("Bearer ") ? USERS_BY_TOKEN.get(header.substring("Bearer ".length())) : null;
                if (user == null) {
                    throw new UnauthorizedResponse();
                }
                ctx.attribute("user", user);
            }));
        }

        @Test
        void recordsAreFiledUnderTheAttribute() throws Exception {
            assertThat(post(BOB, "k-bob", BODY).body()).contains("\"caller\":\"bob\"");

            assertThat(store.find(new RecordKey("default", RecordKey.callerOf("bob"), "POST", "/orders", "k-bob"),
                    Instant.now())).isPresent();
        }

    }

    /**
     * Jetty's Basic authentication with alice and bob: a request that carries credentials must
     * authenticate (wrong ones: 401); one without stays anonymous. Jetty's constraints are chosen
     * by path, so "when credentials are given" is a constraint chosen per request.
     */
    private static SecurityHandler basicWhenGiven() {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("alice-pw"), new String[] {"clerk"});
        users.addUser("bob", Credential.getCredential("bob-pw"), new String[] {"clerk"});
        HashLoginService login = new HashLoginService("orders");
        login.setUserStore(users);
        // --- as in README.md, "Callers"
        ConstraintSecurityHandler security = new ConstraintSecurityHandler() {
            @Override
            protected Constraint getConstraint(String pathInContext, Request request) {
                return request.getHeaders().contains(HttpHeader.AUTHORIZATION) ? Constraint.ANY_USER : Constraint.ALLOWED;
            }
        };
        security.setAuthenticator(new BasicAuthenticator());
        security.setLoginService(login);
        // ---
        return security;
    }

    private HttpResponse<String> post(String authorization, String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/orders"))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
