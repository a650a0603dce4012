/**
 * Idempotent RabbitMQ consumers: {@code dev.idempotency.amqp} for the Java client, and
 * {@code dev.idempotency.amqp.spring} for Spring AMQP listeners (spring-rabbit optional). The Java
 * client and Spring's jars have stable Automatic-Module-Names.
 */
module dev.idempotency.amqp {
    requires transitive dev.idempotency.core;
    requires transitive com.rabbitmq.client;
    requires org.slf4j;
    requires static spring.aop;
    requires static spring.amqp;
    requires static spring.rabbit;

    exports dev.idempotency.amqp;
    exports dev.idempotency.amqp.spring;
}
