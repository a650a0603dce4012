package dev.idempotency.examples.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;

/**
 * One HTTP answer of an example service as the tests judge it: status, the headers that matter,
 * the body, and how long it took. A request that got no answer in time is an answer with status
 * 0 ({@link #hung()}).
 *
 * @param status        the HTTP status; 0 when no answer came (timeout, connection refused or reset)
 * @param contentType   the {@code Content-Type}, empty when absent
 * @param replayed      whether {@code Idempotent-Replayed: true} was sent
 * @param retryAfter    the {@code Retry-After} header, empty when absent
 * @param body          the body as text
 * @param elapsedMillis from sending to the last byte
 * @param failure       why no answer came, when {@code status} is 0
 */
record Answer(int status, String contentType, boolean replayed, Optional<String> retryAfter, String body,
              long elapsedMillis, String failure) {

    static final String ORDER = "{\"item\":\"book\",\"quantity\":1}";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Sends {@code POST path} with the JSON {@code body} and, unless null, the key; waits at most {@code timeout}. */
    static Answer post(HttpClient http, int port, String path, String key, String body, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        long started = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent(),
                    response.headers().firstValue("Retry-After"), response.body(), millisSince(started), null);
        } catch (HttpTimeoutException e) {
            return new Answer(0, "", false, Optional.empty(), "", millisSince(started),
                    "no answer within " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            return new Answer(0, "", false, Optional.empty(), "", millisSince(started), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "", false, Optional.empty(), "", millisSince(started), "interrupted");
        }
    }

    /** A client for one test: HTTP/1.1, a short connect timeout. */
    static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
    }

    boolean hung() {
        return status == 0;
    }

    boolean isProblem() {
        return contentType.startsWith("application/problem+json");
    }

    /** The problem document's {@code code}, empty when this is not a problem document. */
    Optional<String> problemCode() {
        return isProblem() ? json().map(j -> j.path("code").asText(null)) : Optional.empty();
    }

    /** The body as JSON, empty when it is not JSON. */
    Optional<JsonNode> json() {
        try {
            return Optional.of(JSON.readTree(body));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** A short description for assertion messages and summaries. */
    String describe() {
        if (hung()) {
            return "no answer after " + elapsedMillis + " ms (" + failure + ")";
        }
        String shortBody = body.length() > 300 ? body.substring(0, 300) + "…" : body;
        return status + (replayed ? " replayed" : "") + " [" + contentType + "] in " + elapsedMillis + " ms: " + shortBody;
    }

    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }
}
