/**
 * What this project's Spring MVC and Spring WebFlux adapters share: the dispatched path of a
 * request, the coverage of {@code idempotency.paths} and the caller a principal stands for.
 * Exported to the WebFlux adapter only.
 */
package dev.idempotency.spring.internal;
