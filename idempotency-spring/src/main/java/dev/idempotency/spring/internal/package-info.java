/**
 * What this project's Spring MVC and Spring WebFlux adapters share: the dispatched path of a
 * request and the coverage of {@code idempotency.paths}. Exported to the WebFlux adapter only.
 */
package dev.idempotency.spring.internal;
