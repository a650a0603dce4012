package dev.idempotency.examples;

import dev.idempotency.core.HttpReply;
import dev.idempotency.core.Problem;

/**
 * A request the service refuses, with the problem document to answer: every framework maps it to
 * {@link #reply()} (status, {@code application/problem+json}, body) written as is.
 */
public final class ProblemException extends RuntimeException {

    /** The {@code type} prefix of the examples' own problems. */
    public static final String TYPE_BASE = "urn:idempotency-example:problem:";

    private final transient Problem problem;

    public ProblemException(Problem problem) {
        super(problem.detail(), null, false, false);
        this.problem = problem;
    }

    /** 400 {@code validation_failed}: the body or a parameter is not what the route accepts. */
    public static ProblemException validation(String detail) {
        return new ProblemException(new Problem(TYPE_BASE + "validation_failed", "Invalid request", 400, detail,
                "validation_failed"));
    }

    /** 404 {@code not_found}. */
    public static ProblemException notFound(String detail) {
        return new ProblemException(new Problem(TYPE_BASE + "not_found", "Not found", 404, detail, "not_found"));
    }

    public Problem problem() {
        return problem;
    }

    /** The response to send: status, headers ({@code Content-Type} included) and JSON body. */
    public HttpReply reply() {
        return problem.toReply();
    }
}
