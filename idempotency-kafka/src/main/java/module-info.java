/**
 * Idempotent Kafka consumers on Spring for Apache Kafka. spring-kafka has a stable
 * Automatic-Module-Name; kafka-clients has none, so its name is the one derived from its jar.
 */
module dev.idempotency.kafka {
    requires transitive dev.idempotency.core;
    requires transitive kafka.clients;
    requires transitive spring.kafka;
    requires transitive spring.core;
    requires org.slf4j;

    exports dev.idempotency.kafka;
}
