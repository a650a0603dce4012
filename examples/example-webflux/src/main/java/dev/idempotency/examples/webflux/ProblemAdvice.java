package dev.idempotency.examples.webflux;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.examples.ProblemException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Answers a refused request with its problem document: status, headers and bytes as they are. */
@RestControllerAdvice
class ProblemAdvice {

    @ExceptionHandler(ProblemException.class)
    ResponseEntity<byte[]> problem(ProblemException exception) {
        HttpReply reply = exception.reply();
        HttpHeaders headers = new HttpHeaders();
        reply.headers().forEach((name, values) -> values.forEach(value -> headers.add(name, value)));
        return ResponseEntity.status(reply.status()).headers(headers).body(reply.body());
    }
}
