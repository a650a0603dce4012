package dev.idempotency.examples.webflux;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.Problem;
import dev.idempotency.examples.ProblemException;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * WebFlux's own refusals of a body it cannot read ({@link ResponseStatusException}s), answered with the examples' problem documents
 * instead of Spring Boot's error JSON: a wildcard or unreadable {@code Content-Type} (415) and a
 * body over the codecs' limit (413). They arise before a controller runs, where
 * {@link ProblemAdvice} does not reach; this handler runs before Spring Boot's (order -1).
 */
@Component
class BodyRefusals implements WebExceptionHandler, Ordered {

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        int status = ex instanceof ResponseStatusException refused ? refused.getStatusCode().value() : 0;
        ProblemException problem;
        if (status == 415) {
            problem = ProblemException.unsupportedMediaType(
                    "The Content-Type must name one media type, such as application/json, not a wildcard");
        } else if (status == 413) {
            problem = new ProblemException(new Problem(ProblemException.TYPE_BASE + "body_too_large", "Body too large",
                    413, "The request body must be at most " + WebFluxExample.MAX_BODY_BYTES + " bytes",
                    "body_too_large"));
        } else {
            return Mono.error(ex);
        }
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.error(ex);
        }
        HttpReply reply = problem.reply();
        response.setStatusCode(HttpStatusCode.valueOf(reply.status()));
        reply.headers().forEach((name, values) -> response.getHeaders().put(name, values));
        return response.writeWith(Mono.just(response.bufferFactory().wrap(reply.body())));
    }

    @Override
    public int getOrder() {
        return -2;
    }
}
