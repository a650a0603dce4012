package dev.idempotency.jakartars;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.CallerChecks;
import dev.idempotency.testkit.TokenIssuer;
import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test kit's caller checks: records are filed under {@code SecurityContext.getUserPrincipal()},
 * as an authentication filter at {@link Priorities#AUTHENTICATION} sets it: HTTP Basic (the
 * principal's name), or bearer JWTs of two issuers (each with its own key and {@code iss}) that
 * SmallRye JWT verifies into a MicroProfile {@code JsonWebToken} (its issuer and subject, or client id).
 */
class CallerFromSecurityContextTest {

    /** The empty name is a user too: its principal's name is {@code ""}. */
    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pw", "bob", "bob-pw",
            "", "nameless-pw");
    private static final String ALICE = "alice:alice-pw";
    private static final String BOB = "bob:bob-pw";
    private static final TokenIssuer ISSUER_A = new TokenIssuer("https://a.example", "issuer A's secret, long enough for HS256");
    private static final TokenIssuer ISSUER_B = new TokenIssuer("https://b.example", "issuer B's secret, long enough for HS256");
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static IdempotencyEngine engine;
    private static JerseyServer server;
    private static CallerChecks.Post post;
    private static CallerChecks.Post bearerPost;

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create(@Context SecurityContext security) {
            Principal user = security.getUserPrincipal();
            String caller = user == null ? "anonymous" : user.getName();
            return Response.status(201).type("application/json")
                    .entity("{\"order\":" + RUNS.incrementAndGet() + ",\"caller\":\"" + caller + "\"}").build();
        }
    }

    /**
     * HTTP Basic or a bearer JWT of either issuer when the request carries credentials (wrong ones:
     * 401); anonymous otherwise.
     */
    @Priority(Priorities.AUTHENTICATION)
    public static class Authentication implements ContainerRequestFilter {

        private static final List<JWTParser> ISSUERS = List.of(parserOf(ISSUER_A), parserOf(ISSUER_B));

        private static JWTParser parserOf(TokenIssuer issuer) {
            JWTAuthContextInfo verification = new JWTAuthContextInfo(issuer.key(), issuer.issuer());
            verification.setSignatureAlgorithm(Set.of(SignatureAlgorithm.HS256));
            verification.setRequireNamedPrincipal(false);
            return new DefaultJWTParser(verification);
        }

        @Override
        public void filter(ContainerRequestContext request) {
            String authorization = request.getHeaderString("Authorization");
            if (authorization == null) {
                return;
            }
            Principal principal = authorization.startsWith("Bearer ") ? token(authorization.substring(7))
                    : basic(authorization.substring("Basic ".length()));
            if (principal == null) {
                request.abortWith(Response.status(401).build());
                return;
            }
            request.setSecurityContext(new User(principal, authorization.substring(0, authorization.indexOf(' '))));
        }

        private static Principal basic(String encoded) {
            String[] credentials = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8).split(":", 2);
            return credentials.length == 2 && credentials[1].equals(PASSWORDS.get(credentials[0]))
                    ? () -> credentials[0] : null;
        }

        /** The first issuer's verification that accepts the token, or null. */
        private static Principal token(String token) {
            for (JWTParser issuer : ISSUERS) {
                try {
                    return issuer.parse(token);
                } catch (ParseException notThisIssuers) {
                    // the next issuer's
                }
            }
            return null;
        }
    }

    /** What {@link Authentication} sets: the user, in no role. */
    record User(Principal getUserPrincipal, String getAuthenticationScheme) implements SecurityContext {
        @Override
        public boolean isUserInRole(String role) {
            return false;
        }

        @Override
        public boolean isSecure() {
            return false;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        server = JerseyServer.start(new ResourceConfig(Orders.class, Authentication.class)
                .register(IdempotencyFeature.of(engine)));
        post = CallerChecks.basicAuthPost(server.baseUri().resolve("/orders"));
        bearerPost = CallerChecks.authorizationPost(server.baseUri().resolve("/orders"));
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    @Test
    void twoCallersOneKeyEachGetTheirOwn() throws Exception {
        CallerChecks.twoCallersOneKeyEachGetTheirOwn(post, RUNS::get, ALICE, BOB);
    }

    @Test
    void concurrentCallersOneKeyRunOncePerCaller() throws Exception {
        CallerChecks.concurrentCallersOneKeyRunOncePerCaller(post, RUNS::get, ALICE, BOB);
    }

    @Test
    void anotherCallersKeyTellsNothing() throws Exception {
        CallerChecks.anotherCallersKeyTellsNothing(post, RUNS::get, ALICE, BOB);
    }

    @Test
    void anonymousNeverReplaysAuthenticated() throws Exception {
        CallerChecks.anonymousNeverReplaysAuthenticated(post, RUNS::get, ALICE);
    }

    @Test
    void wrongCredentialsAre401AndReserveNothing() throws Exception {
        CallerChecks.wrongCredentialsReserveNothing(post, RUNS::get, "alice:wrong", ALICE);
    }

    @Test
    void aPrincipalWithAnEmptyNameIsRefusedNeverAnonymous() throws Exception {
        CallerChecks.unidentifiedCallerIsRefused(post, RUNS::get, ":nameless-pw");
    }

    @Test
    void microProfileJwtsAreFiledByIssuerAndSubjectOrClient() throws Exception {
        CallerChecks.tokensAreFiledByIssuerAndSubject(bearerPost, RUNS::get, ISSUER_A, ISSUER_B);
    }
}
