package dev.idempotency.examples;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.Problem;
import java.time.Duration;

/**
 * A request the service refuses, with the problem document to answer: every framework maps it to
 * {@link #reply()} (status, {@code application/problem+json}, body) written as is.
 */
public final class ProblemException extends RuntimeException {

    /** The {@code type} prefix of the examples' own problems. */
    public static final String TYPE_BASE = "urn:idempotency-example:problem:";

    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final transient Problem problem;

    public ProblemException(Problem problem) {
        this(problem, null);
    }

    /** A problem caused by {@code cause} (kept for logs; the client sees only the problem). */
    public ProblemException(Problem problem, Throwable cause) {
        super(problem.detail(), cause, true, false);
        this.problem = problem;
    }

    /** 400 {@code validation_failed}: the body or a parameter is not what the route accepts. */
    public static ProblemException validation(String detail) {
        return new ProblemException(new Problem(TYPE_BASE + "validation_failed", "Invalid request", 400, detail,
                "validation_failed"));
    }

    /** 415 {@code unsupported_media_type}: the body's {@code Content-Type} is not one the service reads. */
    public static ProblemException unsupportedMediaType(String detail) {
        return new ProblemException(new Problem(TYPE_BASE + "unsupported_media_type", "Unsupported media type", 415,
                detail, "unsupported_media_type"));
    }

    /**
     * 503 {@code database_unavailable}: the service's own database failed while handling the
     * request. Retryable: with the same key, the retry runs again (a failed request is not stored).
     */
    public static ProblemException databaseUnavailable(Throwable cause) {
        return new ProblemException(new Problem(TYPE_BASE + "database_unavailable", "Database unavailable", 503,
                "The service's database is unavailable; retry later", "database_unavailable"), cause);
    }

    /** 404 {@code not_found}. */
    public static ProblemException notFound(String detail) {
        return new ProblemException(new Problem(TYPE_BASE + "not_found", "Not found", 404, detail, "not_found"));
    }

    public Problem problem() {
        return problem;
    }

    /**
     * The response to send: status, headers ({@code Content-Type} included, and {@code Retry-After}
     * for a 503) and JSON body.
     */
    public HttpReply reply() {
        return problem.toReply(problem.status() == 503 ? RETRY_AFTER : null);
    }
}
