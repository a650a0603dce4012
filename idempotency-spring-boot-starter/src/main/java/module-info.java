/** The starter: brings the Spring module (and Spring MVC) and holds no code of its own. */
module dev.idempotency.spring.starter {
    requires transitive dev.idempotency.spring;
}
