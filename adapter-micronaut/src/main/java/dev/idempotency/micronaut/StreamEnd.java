package dev.idempotency.micronaut;

/**
 * How a streamed response body ended, told by the body itself as the server sends it. Each method
 * may block (it touches the store): callers on an event loop hand it to the blocking executor.
 * At most one of them is called per body.
 */
interface StreamEnd {

    /**
     * The body was sent whole; the server ends the response only after this returns.
     *
     * @throws RuntimeException when the client must not take the response as a success (the
     *                          atomic mode's commit failed): the body is then broken off
     */
    void sent();

    /** The stream failed part-way; the server breaks the body off. */
    void failed(Throwable cause);

    /** The server stopped sending before the end, the client having gone away. */
    void abandoned();
}
