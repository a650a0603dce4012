/**
 * The Spring Boot starter holds no code: it brings {@code idempotency-spring} (the
 * auto-configuration, package {@code dev.idempotency.spring}) and Spring MVC. This package only
 * documents that, in the starter's sources jar.
 */
package dev.idempotency.spring.starter;
