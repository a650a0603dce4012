/**
 * Vert.x Web 5 adapter: {@link dev.idempotency.vertx.IdempotencyHandler} translates a route's
 * request and response into the engine's steps, with storage calls kept off the event loop.
 */
package dev.idempotency.vertx;
