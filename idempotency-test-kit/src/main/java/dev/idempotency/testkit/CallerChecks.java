package dev.idempotency.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testkit.internal.AtOnce;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * The checks every adapter passes with its framework's own authentication, over real HTTP: one
 * caller's key never replays another caller's response, whatever shape the principal has (no
 * usable identity: refused; the framework's anonymous marker: anonymous, not an account of its
 * name; one subject at two issuers: two callers). The adapter's test serves a keyed {@code POST}
 * that authenticated callers and anonymous ones may both reach (wrong credentials: 401), sends the
 * requests ({@link Post}) and counts its handler's runs ({@code runs}).
 */
public final class CallerChecks {

    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";
    private static final String OTHER_BODY = "{\"item\":\"pen\",\"quantity\":3}";

    /** One keyed POST of {@code body} as {@code caller} (its credentials; {@code null}: anonymous). */
    @FunctionalInterface
    public interface Post {
        HttpResponse<String> send(String caller, String key, String body) throws Exception;
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private CallerChecks() {
    }

    /** A {@link Post} to {@code uri} whose callers are HTTP Basic credentials, {@code user:password}. */
    public static Post basicAuthPost(URI uri) {
        Post post = authorizationPost(uri);
        return (caller, key, body) -> post.send(caller == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(caller.getBytes(StandardCharsets.UTF_8)), key, body);
    }

    /** A {@link Post} to {@code uri} whose callers are whole {@code Authorization} values ({@code Bearer …}). */
    public static Post authorizationPost(URI uri) {
        return (caller, key, body) -> {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (caller != null) {
                request.header("Authorization", caller);
            }
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        };
    }

    /**
     * Two callers send one key with one body: each runs the handler and gets its own answer; each
     * retry replays its own caller's answer, never the other's.
     */
    public static void twoCallersOneKeyEachGetTheirOwn(Post post, IntSupplier runs, String callerA, String callerB)
            throws Exception {
        String key = newKey();
        int before = runs.getAsInt();
        HttpResponse<String> firstA = post.send(callerA, key, BODY);
        HttpResponse<String> firstB = post.send(callerB, key, BODY);
        HttpResponse<String> retryA = post.send(callerA, key, BODY);
        HttpResponse<String> retryB = post.send(callerB, key, BODY);

        assertFresh(firstA);
        assertFresh(firstB);
        assertThat(firstB.body()).as("B's answer is not A's").isNotEqualTo(firstA.body());
        assertReplayOf(retryA, firstA);
        assertReplayOf(retryB, firstB);
        assertThat(runs.getAsInt() - before).as("handler runs").isEqualTo(2);
    }

    /**
     * Two callers send one key with one body from 20 threads at once, alternating: the handler runs
     * exactly once per caller; every request gets its own caller's answer (fresh or replayed) or a
     * 409 while that caller's first still runs, never the other caller's.
     */
    public static void concurrentCallersOneKeyRunOncePerCaller(Post post, IntSupplier runs, String callerA,
            String callerB) throws Exception {
        String key = newKey();
        int before = runs.getAsInt();
        AtomicInteger thread = new AtomicInteger();
        List<Map.Entry<String, HttpResponse<String>>> answers = AtOnce.run(20, () -> {
            String caller = thread.getAndIncrement() % 2 == 0 ? callerA : callerB;
            return Map.entry(caller, post.send(caller, key, BODY));
        });
        HttpResponse<String> lastA = post.send(callerA, key, BODY);
        HttpResponse<String> lastB = post.send(callerB, key, BODY);

        assertThat(runs.getAsInt() - before).as("handler runs").isEqualTo(2);
        for (HttpResponse<String> last : List.of(lastA, lastB)) {
            assertThat(last.statusCode()).isEqualTo(201);
            assertThat(last.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        }
        assertThat(lastB.body()).isNotEqualTo(lastA.body());
        for (Map.Entry<String, HttpResponse<String>> answer : answers) {
            HttpResponse<String> response = answer.getValue();
            assertThat(response.statusCode()).as("answer to %s: %s", answer.getKey(), response.body()).isIn(201, 409);
            if (response.statusCode() == 201) {
                assertThat(response.body()).isEqualTo(answer.getKey().equals(callerA) ? lastA.body() : lastB.body());
            }
        }
    }

    /**
     * A caller reusing another caller's key with another body learns nothing: no 422, its request
     * runs as the first with that key.
     */
    public static void anotherCallersKeyTellsNothing(Post post, IntSupplier runs, String callerA, String callerB)
            throws Exception {
        String key = newKey();
        int before = runs.getAsInt();
        HttpResponse<String> first = post.send(callerA, key, BODY);
        HttpResponse<String> other = post.send(callerB, key, OTHER_BODY);

        assertFresh(first);
        assertFresh(other);
        assertThat(runs.getAsInt() - before).as("handler runs").isEqualTo(2);
    }

    /**
     * An anonymous request with an authenticated caller's key and body never gets that caller's
     * answer, nor the other way round; each retry replays its own.
     */
    public static void anonymousNeverReplaysAuthenticated(Post post, IntSupplier runs, String caller)
            throws Exception {
        String key = newKey();
        int before = runs.getAsInt();
        HttpResponse<String> authenticated = post.send(caller, key, BODY);
        HttpResponse<String> anonymous = post.send(null, key, BODY);
        HttpResponse<String> anonymousRetry = post.send(null, key, BODY);
        HttpResponse<String> authenticatedRetry = post.send(caller, key, BODY);

        assertFresh(authenticated);
        assertFresh(anonymous);
        assertThat(anonymous.body()).isNotEqualTo(authenticated.body());
        assertReplayOf(anonymousRetry, anonymous);
        assertReplayOf(authenticatedRetry, authenticated);
        assertThat(runs.getAsInt() - before).as("handler runs").isEqualTo(2);
    }

    /**
     * Wrong credentials are answered 401 before the engine sees the request: they reserve nothing,
     * so {@code caller}'s request with that key afterwards runs as the first.
     */
    public static void wrongCredentialsReserveNothing(Post post, IntSupplier runs, String wrongCredentials,
            String caller) throws Exception {
        String key = newKey();
        int before = runs.getAsInt();
        HttpResponse<String> refused = post.send(wrongCredentials, key, BODY);
        HttpResponse<String> right = post.send(caller, key, BODY);

        assertThat(refused.statusCode()).isEqualTo(401);
        assertFresh(right);
        assertThat(runs.getAsInt() - before).as("handler runs").isEqualTo(1);
    }

    /**
     * An authenticated request whose authentication gives no usable identity ({@code unidentified}:
     * a token without a subject or client id, an empty name) is refused with {@code 403
     * idempotency_caller_unknown} and its handler never runs. It is never filed as anonymous: it
     * reserves nothing (an anonymous request with that key afterwards runs as the first), and it
     * never gets an anonymous request's answer.
     */
    public static void unidentifiedCallerIsRefused(Post post, IntSupplier runs, String unidentified)
            throws Exception {
        String key = newKey();
        int before = runs.getAsInt();

        assertUnknownCaller(post.send(unidentified, key, BODY));
        assertFresh(post.send(null, key, BODY));
        assertUnknownCaller(post.send(unidentified, key, BODY));
        assertThat(runs.getAsInt() - before).as("handler runs: the anonymous request's").isEqualTo(1);
    }

    private static void assertUnknownCaller(HttpResponse<String> response) {
        assertThat(response.statusCode()).as("status: %s", response.body()).isEqualTo(403);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).contains("\"code\":\"idempotency_caller_unknown\"").contains("CallerResolver");
    }

    /**
     * The framework's anonymous authentication is anonymity, not a name: an account whose name is
     * the one the framework gives its anonymous marker ({@code namedLikeTheMarker}, e.g. Spring
     * Security's {@code anonymousUser}) and anonymous requests never replay each other's answers.
     */
    public static void anonymousMarkerIsNotAnAccountOfItsName(Post post, IntSupplier runs, String namedLikeTheMarker)
            throws Exception {
        anonymousNeverReplaysAuthenticated(post, runs, namedLikeTheMarker);
    }

    /**
     * One subject issued by two issuers is two callers ({@code atIssuerA}, {@code atIssuerB}: tokens
     * with the same {@code sub} from two issuers the application accepts): neither ever gets the
     * other's answer.
     */
    public static void oneSubjectAtTwoIssuersIsTwoCallers(Post post, IntSupplier runs, String atIssuerA,
            String atIssuerB) throws Exception {
        twoCallersOneKeyEachGetTheirOwn(post, runs, atIssuerA, atIssuerB);
    }

    /**
     * Bearer tokens (JWTs of {@code issuerA} and {@code issuerB}, both accepted by the application)
     * are filed under their issuer and subject: {@code alice} at A and {@code alice} at B are two
     * callers; a service token without {@code sub} is its client's ({@code client_id}), apart from
     * the subject of that name; a token with neither is refused.
     */
    public static void tokensAreFiledByIssuerAndSubject(Post post, IntSupplier runs, TokenIssuer issuerA,
            TokenIssuer issuerB) throws Exception {
        oneSubjectAtTwoIssuersIsTwoCallers(post, runs, issuerA.bearer(Map.of("sub", "alice")),
                issuerB.bearer(Map.of("sub", "alice")));
        twoCallersOneKeyEachGetTheirOwn(post, runs, issuerA.bearer(Map.of("client_id", "billing")),
                issuerA.bearer(Map.of("sub", "billing")));
        unidentifiedCallerIsRefused(post, runs, issuerA.bearer(Map.of("scope", "orders")));
    }

    /**
     * For an engine built with {@code shareRecordsAcrossCallers(true)}: the opt-in does what it
     * says — {@code callerB}'s request with {@code callerA}'s key and body replays A's answer.
     */
    public static void sharedRecordsReplayOneCallersAnswerToAnother(Post post, IntSupplier runs, String callerA,
            String callerB) throws Exception {
        String key = newKey();
        int before = runs.getAsInt();
        HttpResponse<String> first = post.send(callerA, key, BODY);
        HttpResponse<String> toB = post.send(callerB, key, BODY);

        assertFresh(first);
        assertReplayOf(toB, first);
        assertThat(runs.getAsInt() - before).as("handler runs").isEqualTo(1);
    }

    private static String newKey() {
        return "caller-" + UUID.randomUUID();
    }

    private static void assertFresh(HttpResponse<String> response) {
        assertThat(response.statusCode()).as("status of a first request: %s", response.body()).isEqualTo(201);
        assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }

    private static void assertReplayOf(HttpResponse<String> retry, HttpResponse<String> first) {
        assertThat(retry.statusCode()).isEqualTo(first.statusCode());
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }
}
