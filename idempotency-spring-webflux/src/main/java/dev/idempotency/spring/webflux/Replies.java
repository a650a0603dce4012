package dev.idempotency.spring.webflux;

import dev.idempotency.core.HttpReply;
import java.util.ArrayList;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/** Writes the engine's replies to a reactive response, byte for byte. */
final class Replies {

    private Replies() {
    }

    /** Exactly the reply's status, headers ({@code Date} included) and body, replacing whatever was set before. */
    static Mono<Void> write(HttpReply reply, ServerHttpResponse response) {
        response.setStatusCode(HttpStatusCode.valueOf(reply.status()));
        HttpHeaders headers = response.getHeaders();
        headers.clear();
        reply.headers().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
        headers.setContentLength(reply.body().length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(reply.body())));
    }
}
