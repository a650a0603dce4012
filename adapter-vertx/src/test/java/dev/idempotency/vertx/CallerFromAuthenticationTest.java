package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.testkit.CallerChecks;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.auth.properties.PropertyFileAuthentication;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.AuthenticationHandler;
import io.vertx.ext.web.handler.BasicAuthHandler;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.ChainAuthHandler;
import io.vertx.ext.web.handler.JWTAuthHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records are filed per caller under the identity of the user Vert.x Web's own authentication set:
 * alice by Basic credentials ({@link PropertyFileAuthentication}), bob by a JWT without issuer
 * ({@link JWTAuth}), tokens of two issuers ({@code https://a.example}, {@code https://b.example},
 * each its own key) under issuer and subject, or issuer and client id; anonymous requests with no
 * user at all. The authentication handler runs ahead of the idempotency handler, as the README says.
 */
class CallerFromAuthenticationTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";
    private static final String ALICE = basic("alice", "alice-pw");

    private final AtomicInteger runs = new AtomicInteger();
    private final InMemoryStore store = new InMemoryStore();
    private Vertx vertx;
    private JWTAuth jwt;
    private JWTAuth issuerA;
    private JWTAuth issuerB;
    private String bob;
    private IdempotencyEngine engine;
    private HttpServer server;

    @BeforeEach
    void vertx() {
        vertx = Vertx.vertx();
        jwt = JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer("a test secret, long enough for HS256")));
        bob = "Bearer " + jwt.generateToken(new JsonObject().put("sub", "bob"), new JWTOptions().setAlgorithm("HS256"));
        issuerA = issuer("https://a.example", "issuer A's secret, long enough for HS256");
        issuerB = issuer("https://b.example", "issuer B's secret, long enough for HS256");
    }

    private JWTAuth issuer(String name, String secret) {
        return JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(secret))
                .setJWTOptions(new JWTOptions().setIssuer(name)));
    }

    /** A bearer token of {@code issuer} with these claims (and {@code iss}, {@code iat}). */
    private static String token(JWTAuth issuer, String name, JsonObject claims) {
        return "Bearer " + issuer.generateToken(claims, new JWTOptions().setAlgorithm("HS256").setIssuer(name));
    }

    private void start(IdempotencyConfig config) throws Exception {
        engine = new IdempotencyEngine(store, config);
        IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
        AuthenticationHandler basicOrBearer = ChainAuthHandler.any()
                .add(BasicAuthHandler.create(PropertyFileAuthentication.create(vertx, "callers.properties")))
                .add(JWTAuthHandler.create(jwt))
                .add(JWTAuthHandler.create(issuerA))
                .add(JWTAuthHandler.create(issuerB));
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create(false));
        router.post("/orders")
                .handler(ctx -> {    // credentials are checked when given (wrong: 401); anonymous requests go on
                    if (ctx.request().headers().contains(HttpHeaders.AUTHORIZATION)) {
                        basicOrBearer.handle(ctx);
                    } else {
                        ctx.next();
                    }
                })
                .handler(idempotency)
                .handler(this::create);
        server = ConformanceRoutes.listen(vertx, idempotency, router);
    }

    private void create(RoutingContext ctx) {
        String caller = ctx.user() == null ? "anonymous" : String.valueOf(ctx.user().subject());
        ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("order", runs.incrementAndGet()).put("caller", caller).encode());
    }

    @AfterEach
    void stop() throws Exception {
        if (engine != null) {
            engine.close();
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void twoCallersOneKeyEachGetTheirOwn() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.twoCallersOneKeyEachGetTheirOwn(this::post, runs::get, ALICE, bob);
    }

    @Test
    void concurrentCallersOneKeyRunOncePerCaller() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.concurrentCallersOneKeyRunOncePerCaller(this::post, runs::get, ALICE, bob);
    }

    @Test
    void anotherCallersKeyTellsNothing() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.anotherCallersKeyTellsNothing(this::post, runs::get, bob, ALICE);
    }

    @Test
    void anonymousNeverReplaysAuthenticated() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.anonymousNeverReplaysAuthenticated(this::post, runs::get, ALICE);
        CallerChecks.anonymousNeverReplaysAuthenticated(this::post, runs::get, bob);
    }

    @Test
    void recordsAreFiledUnderTheUsersSubject() throws Exception {
        start(IdempotencyConfig.builder().build());

        assertThat(post(ALICE, "k-alice", BODY).body()).contains("\"caller\":\"alice\"");
        assertThat(post(bob, "k-bob", BODY).body()).contains("\"caller\":\"bob\"");
        assertThat(post(null, "k-anonymous", BODY).body()).contains("\"caller\":\"anonymous\"");

        assertThat(store.find(recordOf("alice", "k-alice"), Instant.now())).isPresent();
        assertThat(store.find(recordOf("bob", "k-bob"), Instant.now())).isPresent();
        assertThat(store.find(new RecordKey("default", "POST", "/orders", "k-anonymous"), Instant.now())).isPresent();
        assertThat(store.size()).isEqualTo(3);
    }

    @Test
    void aTokenWithoutSubjectOrClientIdIsRefusedNeverAnonymous() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.unidentifiedCallerIsRefused(this::post, runs::get,
                token(issuerA, "https://a.example", new JsonObject()));
        CallerChecks.unidentifiedCallerIsRefused(this::post, runs::get,
                token(issuerA, "https://a.example", new JsonObject().put("sub", "")));
        CallerChecks.unidentifiedCallerIsRefused(this::post, runs::get,
                "Bearer " + jwt.generateToken(new JsonObject(), new JWTOptions().setAlgorithm("HS256")));
    }

    @Test
    void serviceTokensWithoutSubjectAreTheirIssuersClients() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.twoCallersOneKeyEachGetTheirOwn(this::post, runs::get,
                token(issuerA, "https://a.example", new JsonObject().put("client_id", "billing")),
                token(issuerA, "https://a.example", new JsonObject().put("azp", "shipping")));
        CallerChecks.oneSubjectAtTwoIssuersIsTwoCallers(this::post, runs::get,
                token(issuerA, "https://a.example", new JsonObject().put("client_id", "billing")),
                token(issuerB, "https://b.example", new JsonObject().put("client_id", "billing")));
    }

    @Test
    void oneSubjectAtTwoIssuersIsTwoCallers() throws Exception {
        start(IdempotencyConfig.builder().build());
        String atA = token(issuerA, "https://a.example", new JsonObject().put("sub", "123"));
        String atB = token(issuerB, "https://b.example", new JsonObject().put("sub", "123"));

        CallerChecks.oneSubjectAtTwoIssuersIsTwoCallers(this::post, runs::get, atA, atB);
        CallerChecks.anonymousNeverReplaysAuthenticated(this::post, runs::get, atA);
        assertThat(post(atA, "k-123", BODY).statusCode()).isEqualTo(201);
        assertThat(store.find(recordOf("123", "k-123"), Instant.now())).as("not filed under the bare subject")
                .isEmpty();
    }

    @Test
    void wrongCredentialsAre401AndReserveNothing() throws Exception {
        start(IdempotencyConfig.builder().build());

        CallerChecks.wrongCredentialsReserveNothing(this::post, runs::get, basic("alice", "wrong"), ALICE);
        CallerChecks.wrongCredentialsReserveNothing(this::post, runs::get, "Bearer not-a-token", ALICE);
    }

    @Test
    void sharedRecordsReplayOneCallersResponseToAnother() throws Exception {
        start(IdempotencyConfig.builder().shareRecordsAcrossCallers(true).build());

        CallerChecks.sharedRecordsReplayOneCallersAnswerToAnother(this::post, runs::get, ALICE, bob);
    }

    private static RecordKey recordOf(String caller, String key) {
        return new RecordKey("default", RecordKey.callerOf(caller), "POST", "/orders", key);
    }

    private HttpResponse<String> post(String authorization, String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.actualPort() + "/orders"))
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
