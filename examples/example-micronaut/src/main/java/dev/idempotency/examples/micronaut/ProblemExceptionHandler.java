package dev.idempotency.examples.micronaut;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.examples.ProblemException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/** Answers a refused request with its problem document, status, headers and bytes as they are. */
@Singleton
class ProblemExceptionHandler implements ExceptionHandler<ProblemException, HttpResponse<byte[]>> {

    @Override
    public HttpResponse<byte[]> handle(HttpRequest request, ProblemException exception) {
        HttpReply reply = exception.reply();
        MutableHttpResponse<byte[]> response = HttpResponse.<byte[]>status(
                io.micronaut.http.HttpStatus.valueOf(reply.status()));
        reply.headers().forEach((name, values) -> values.forEach(value -> response.header(name, value)));
        return response.body(reply.body());
    }
}
