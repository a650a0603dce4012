package dev.idempotency.core;

/**
 * Every problem the engine answers with, its HTTP status, title and default detail. The
 * {@link #code()} is the stable, snake_case {@code code} member of the problem document.
 */
public enum ProblemCode {
    IDEMPOTENCY_KEY_INVALID(400, "Invalid Idempotency-Key", "The Idempotency-Key header is invalid"),
    IDEMPOTENCY_KEY_MISSING(400, "Idempotency-Key required", "This request requires an Idempotency-Key header"),
    IDEMPOTENCY_TENANT_UNKNOWN(400, "Unknown tenant", "The request's tenant could not be determined"),
    /**
     * 403: the request may well be authenticated, but the server cannot say under which caller to file
     * it; not a malformed request (400), and not missing credentials (401): the same request with the
     * same credentials is refused again until the server's caller resolution changes.
     */
    IDEMPOTENCY_CALLER_UNKNOWN(403, "Unknown caller", "The request's caller could not be determined"),
    IDEMPOTENCY_PATH_INVALID(400, "Invalid request path", "The request path cannot scope an Idempotency-Key"),
    IDEMPOTENCY_PATH_TOO_LONG(414, "Request path too long",
            "The request path is too long to scope an Idempotency-Key"),
    IDEMPOTENCY_REQUEST_BODY_UNREADABLE(400, "Unreadable request body",
            "The request body could not be read to its end: it is shorter than its Content-Length, or its chunked "
                    + "encoding is malformed"),
    IDEMPOTENCY_CONTENT_ENCODING_UNSUPPORTED(415, "Unsupported Content-Encoding",
            "The request body's Content-Encoding is not one the idempotency layer decodes (gzip, deflate, identity), "
                    + "so it cannot be fingerprinted"),
    IDEMPOTENCY_REQUEST_TOO_LARGE(413, "Request body too large",
            "The request body is too large to be fingerprinted for idempotency"),
    IDEMPOTENCY_KEY_CONFLICT(422, "Idempotency-Key reused",
            "Idempotency-Key reused with a different request (its body, query string or media type)"),
    IDEMPOTENCY_RESPONSE_NOT_STORED(410, "Response not stored",
            "The request with this Idempotency-Key was already applied, but its response was not stored"),
    IDEMPOTENCY_REQUEST_IN_PROGRESS(409, "Request in progress",
            "A request with this Idempotency-Key is still being processed; retry later"),
    IDEMPOTENCY_STORAGE_UNAVAILABLE(503, "Idempotency storage unavailable", "Idempotency storage is unreachable");

    private final int status;
    private final String title;
    private final String defaultDetail;

    ProblemCode(int status, String title, String defaultDetail) {
        this.status = status;
        this.title = title;
        this.defaultDetail = defaultDetail;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String defaultDetail() {
        return defaultDetail;
    }

    /** The snake_case code, e.g. {@code idempotency_key_invalid}. */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
