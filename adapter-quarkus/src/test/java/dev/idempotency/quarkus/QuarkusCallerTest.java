package dev.idempotency.quarkus;

import dev.idempotency.testkit.CallerChecks;
import dev.idempotency.testkit.TokenIssuer;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.annotation.Priority;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.net.URI;
import java.security.Principal;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The test kit's caller checks on Quarkus REST with the module's own wiring (the JDBC store under
 * {@code /app/**}): records are filed under {@code SecurityContext.getUserPrincipal()}, as an
 * opaque-token filter at {@link Priorities#AUTHENTICATION} sets it (a principal with an empty name
 * is refused, never anonymous) or as Quarkus's smallrye-jwt authenticates a bearer JWT (filed by
 * its issuer and subject, or client id).
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class QuarkusCallerTest {

    private static final String ALICE = "Token token-alice";
    private static final String BOB = "Token token-bob";
    /**
     * smallrye-jwt verifies one issuer ({@code mp.jwt.verify.issuer}) and picks a key of a set by
     * the token's {@code kid}, which {@link TokenIssuer} does not set: the application accepts both
     * issuers by checking no issuer, with one key ({@code callers-jwt-key.jwk} holds this secret).
     */
    private static final String SECRET = "both issuers' secret, long enough for HS256";
    private static final TokenIssuer ISSUER_A = new TokenIssuer("https://a.example", SECRET);
    private static final TokenIssuer ISSUER_B = new TokenIssuer("https://b.example", SECRET);
    private static final AtomicInteger RUNS = new AtomicInteger();

    @TestHTTPResource("/app/callers")
    URI orders;

    @Path("/app/callers")
    public static class Orders {
        @POST
        public Response create(byte[] body, @Context SecurityContext security) {
            Principal user = security.getUserPrincipal();
            String caller = user == null ? "anonymous" : user.getName();
            return Response.status(201).type("application/json")
                    .entity("{\"order\":" + RUNS.incrementAndGet() + ",\"caller\":\"" + caller + "\"}").build();
        }
    }

    /**
     * What {@link OpaqueTokens} sets: the token's user, in no role; the components are the
     * {@link SecurityContext}'s own accessors.
     */
    record TokenUser(Principal getUserPrincipal, boolean isSecure, String getAuthenticationScheme)
            implements SecurityContext {
        @Override
        public boolean isUserInRole(String role) {
            return false;
        }
    }

    /**
     * Opaque tokens of {@code /app/callers} (an unknown one: 401); a bearer JWT is smallrye-jwt's;
     * without a token the request stays anonymous.
     */
    @Provider
    @Priority(Priorities.AUTHENTICATION)
    public static class OpaqueTokens implements ContainerRequestFilter {

        private static final Map<String, String> USERS = Map.of("token-alice", "alice", "token-bob", "bob",
                "token-nameless", "");

        @Override
        public void filter(ContainerRequestContext request) {
            String authorization = request.getHeaderString("Authorization");
            if (authorization == null || !authorization.startsWith("Token ")
                    || !request.getUriInfo().getRequestUri().getPath().startsWith("/app/callers")) {
                return;
            }
            String user = USERS.get(authorization.substring(6));
            if (user == null) {
                request.abortWith(Response.status(401).build());
                return;
            }
            request.setSecurityContext(new TokenUser(() -> user, false, "Token"));
        }
    }

    @Test
    void twoCallersOneKeyEachGetTheirOwn() throws Exception {
        CallerChecks.twoCallersOneKeyEachGetTheirOwn(CallerChecks.authorizationPost(orders), RUNS::get, ALICE, BOB);
    }

    @Test
    void anonymousNeverReplaysAuthenticated() throws Exception {
        CallerChecks.anonymousNeverReplaysAuthenticated(CallerChecks.authorizationPost(orders), RUNS::get, ALICE);
    }

    @Test
    void wrongCredentialsAre401AndReserveNothing() throws Exception {
        CallerChecks.wrongCredentialsReserveNothing(CallerChecks.authorizationPost(orders), RUNS::get,
                "Token token-x", ALICE);
    }

    @Test
    void aPrincipalWithAnEmptyNameIsRefusedNeverAnonymous() throws Exception {
        CallerChecks.unidentifiedCallerIsRefused(CallerChecks.authorizationPost(orders), RUNS::get,
                "Token token-nameless");
    }

    @Test
    void bearerJwtsAreFiledByIssuerAndSubjectOrClient() throws Exception {
        CallerChecks.tokensAreFiledByIssuerAndSubject(CallerChecks.authorizationPost(orders), RUNS::get, ISSUER_A,
                ISSUER_B);
    }
}
