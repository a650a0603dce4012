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
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MicroProfile JWT principals on Jersey: SmallRye JWT verifies the bearer tokens of two issuers
 * (each with its own key and {@code iss}) and puts its {@code JsonWebToken} in the
 * {@code SecurityContext}, as a MicroProfile JWT runtime does; records are filed under the token's
 * issuer and subject, or its client id.
 */
class JsonWebTokenCallerTest {

    private static final TokenIssuer ISSUER_A = new TokenIssuer("https://a.example", "issuer A's secret, long enough for HS256");
    private static final TokenIssuer ISSUER_B = new TokenIssuer("https://b.example", "issuer B's secret, long enough for HS256");
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static IdempotencyEngine engine;
    private static JerseyServer server;

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create() {
            return Response.status(201).type("application/json").entity("{\"order\":" + RUNS.incrementAndGet() + "}")
                    .build();
        }
    }

    /** Bearer tokens of either issuer (any other: 401); without a token the request stays anonymous. */
    @Priority(Priorities.AUTHENTICATION)
    public static class BearerTokens implements ContainerRequestFilter {

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
            for (JWTParser issuer : ISSUERS) {
                try {
                    JsonWebToken token = issuer.parse(authorization.substring("Bearer ".length()));
                    request.setSecurityContext(new TokenUser(token));
                    return;
                } catch (ParseException notThisIssuers) {
                    // the next issuer's
                }
            }
            request.abortWith(Response.status(401).build());
        }
    }

    record TokenUser(Principal getUserPrincipal) implements SecurityContext {
        @Override
        public boolean isUserInRole(String role) {
            return false;
        }

        @Override
        public boolean isSecure() {
            return false;
        }

        @Override
        public String getAuthenticationScheme() {
            return "Bearer";
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        server = JerseyServer.start(new ResourceConfig(Orders.class, BearerTokens.class)
                .register(IdempotencyFeature.of(engine)));
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    @Test
    void tokensAreFiledByIssuerAndSubjectOrClient() throws Exception {
        CallerChecks.tokensAreFiledByIssuerAndSubject(CallerChecks.authorizationPost(server.baseUri().resolve("/orders")),
                RUNS::get, ISSUER_A, ISSUER_B);
    }

    @Test
    void anonymousNeverReplaysAToken() throws Exception {
        CallerChecks.anonymousNeverReplaysAuthenticated(CallerChecks.authorizationPost(server.baseUri().resolve("/orders")),
                RUNS::get, ISSUER_A.bearer(java.util.Map.of("sub", "alice")));
    }
}
