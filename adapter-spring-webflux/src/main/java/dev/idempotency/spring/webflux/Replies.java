package dev.idempotency.spring.webflux;

import dev.idempotency.core.adapter.HttpReply;
import java.util.ArrayList;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/** Writes the engine's replies to a reactive response, byte for byte. */
final class Replies {

    private Replies() {
    }

    /**
     * The reply's status, headers ({@code Date} included) and body. A header of the reply replaces
     * one of that name set before; the others set before — by the filters in front of this one, such
     * as Spring Security's CORS headers — stay, as they would on the handler's own answer.
     */
    static Mono<Void> write(HttpReply reply, ServerHttpResponse response) {
        response.setStatusCode(HttpStatusCode.valueOf(reply.status()));
        HttpHeaders headers = response.getHeaders();
        reply.headers().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
        headers.setContentLength(reply.body().length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(reply.body())));
    }
}
