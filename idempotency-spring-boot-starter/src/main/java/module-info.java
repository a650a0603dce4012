/**
 * The starter: brings the Spring module and the WebFlux module, and holds no code of its own; the
 * application's web stack (Spring MVC or WebFlux) decides which filter runs.
 */
module dev.idempotency.spring.starter {
    requires transitive dev.idempotency.spring;
    requires transitive dev.idempotency.spring.webflux;
}
