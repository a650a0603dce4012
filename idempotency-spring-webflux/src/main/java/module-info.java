/**
 * The Spring WebFlux filter and its Spring Boot auto-configuration; the engine's own
 * auto-configuration is idempotency-spring's. Opened for Spring's reflection. Spring's and
 * Reactor's jars have stable Automatic-Module-Names.
 */
module dev.idempotency.spring.webflux {
    requires transitive dev.idempotency.core;
    requires dev.idempotency.spring;
    requires org.reactivestreams;
    requires org.slf4j;
    requires reactor.core;
    requires spring.beans;
    requires spring.boot;
    requires spring.boot.autoconfigure;
    requires spring.context;
    requires spring.core;
    requires spring.web;
    requires spring.webflux;

    exports dev.idempotency.spring.webflux;
    opens dev.idempotency.spring.webflux;
}
