package dev.idempotency.examples.quarkus;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.examples.ProblemException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** Answers a refused request with its problem document: status, headers and bytes as they are. */
@Provider
public class ProblemMapper implements ExceptionMapper<ProblemException> {

    @Override
    public Response toResponse(ProblemException exception) {
        HttpReply reply = exception.reply();
        Response.ResponseBuilder response = Response.status(reply.status());
        reply.headers().forEach((name, values) -> values.forEach(value -> response.header(name, value)));
        return response.entity(reply.body()).build();
    }
}
