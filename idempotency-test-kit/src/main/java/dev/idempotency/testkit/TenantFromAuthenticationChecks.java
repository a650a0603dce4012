package dev.idempotency.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

/**
 * The checks every adapter's "tenant from authentication" recipe passes over real HTTP, whatever
 * its authentication looks like: the adapter's test sends the requests ({@link Post}), these
 * checks read the answers. What ran, and as whom, stays the adapter test's to assert.
 */
public final class TenantFromAuthenticationChecks {

    /** One keyed POST as {@code caller} (its credentials; {@code null}: none). */
    @FunctionalInterface
    public interface Post {
        HttpResponse<String> send(String caller, String key) throws Exception;
    }

    private TenantFromAuthenticationChecks() {
    }

    /**
     * Two callers of two tenants send the same key twice each: each first answer is a fresh 201
     * showing its caller ({@code shownA} / {@code shownB} appear in the body), each retry replays
     * its own tenant's first answer — one record per tenant.
     */
    public static void sameKeyTwoTenants(Post post, String callerA, String callerB, String shownA, String shownB)
            throws Exception {
        HttpResponse<String> firstA = post.send(callerA, "k-1");
        HttpResponse<String> firstB = post.send(callerB, "k-1");
        HttpResponse<String> retryA = post.send(callerA, "k-1");
        HttpResponse<String> retryB = post.send(callerB, "k-1");

        assertThat(firstA.statusCode()).isEqualTo(201);
        assertThat(firstB.statusCode()).isEqualTo(201);
        assertThat(firstA.body()).contains(shownA);
        assertThat(firstB.body()).contains(shownB);
        assertThat(firstA.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(firstB.headers().firstValue("Idempotent-Replayed")).isEmpty();

        assertThat(retryA.statusCode()).isEqualTo(201);
        assertThat(retryA.body()).isEqualTo(firstA.body());
        assertThat(retryA.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retryB.statusCode()).isEqualTo(201);
        assertThat(retryB.body()).isEqualTo(firstB.body());
        assertThat(retryB.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    /**
     * No credentials and wrong credentials are answered 401 before the engine sees the request:
     * they reserve nothing, so the valid caller's request with the same key afterwards runs fresh.
     */
    public static void refusedCallersReserveNothing(Post post, String wrongCaller, String validCaller)
            throws Exception {
        HttpResponse<String> anonymous = post.send(null, "k-2");
        HttpResponse<String> wrong = post.send(wrongCaller, "k-2");
        HttpResponse<String> valid = post.send(validCaller, "k-2");

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(valid.statusCode()).as("the refused requests reserved nothing").isEqualTo(201);
        assertThat(valid.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }
}
