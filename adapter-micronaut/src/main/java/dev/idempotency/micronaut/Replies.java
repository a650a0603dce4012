package dev.idempotency.micronaut;

import dev.idempotency.core.adapter.HttpReply;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpHeaders;
import io.micronaut.http.MutableHttpResponse;
import java.util.List;
import java.util.Map;

/** Turns the engine's replies into Micronaut responses, byte for byte. */
final class Replies {

    private Replies() {
    }

    /**
     * A response with exactly the reply's status, headers ({@code Date} included) and body. The body is a {@code byte[]},
     * which the server writes unchanged under the Content-Type set here.
     */
    static MutableHttpResponse<byte[]> toResponse(HttpReply reply) {
        MutableHttpResponse<byte[]> response = HttpResponse.<byte[]>ok().status(reply.status());
        MutableHttpHeaders headers = response.getHeaders();
        for (Map.Entry<String, List<String>> header : reply.headers().entrySet()) {
            headers.remove(header.getKey());
            for (String value : header.getValue()) {
                headers.add(header.getKey(), value);
            }
        }
        return response.body(reply.body());
    }
}
