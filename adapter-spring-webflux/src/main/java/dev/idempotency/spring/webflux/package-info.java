/**
 * Idempotency-Key handling for Spring WebFlux: a {@code WebFilter} over the engine's asynchronous
 * face, registered by Spring Boot in a reactive web application with {@code idempotency.enabled=true}.
 */
package dev.idempotency.spring.webflux;
