package dev.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.store.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * A {@code @KafkaListener} application whose error handler publishes to a dead-letter topic: a record
 * reusing a key with another body, and a record without a key, go there without running; a true
 * duplicate is committed without running.
 */
class KafkaListenerDeadLetterTest {

    private static final String TOPIC = TestBroker.uniqueName("orders");
    private static final String DEAD_LETTERS = TOPIC + ".DLT";
    private static final String GROUP = TestBroker.uniqueName("orders-app");

    private static AnnotationConfigApplicationContext app;

    @BeforeAll
    static void start() {
        TestBroker.createTopic(TOPIC, 2);
        TestBroker.createTopic(DEAD_LETTERS, 1);
        app = new AnnotationConfigApplicationContext();
        app.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("orders.topic", TOPIC, "orders.group", GROUP)));
        app.register(OrdersApp.class);
        app.refresh();
    }

    @AfterAll
    static void stop() {
        app.close();
        TestBroker.deleteTopics(TOPIC, DEAD_LETTERS);
    }

    /** The application: a listener method, and the error handler prepared for the settlements. */
    @Configuration
    @EnableKafka
    static class OrdersApp {

        @Bean
        ConsumerFactory<String, String> consumerFactory() {
            return new DefaultKafkaConsumerFactory<>(TestBroker.consumerProps(GROUP));
        }

        @Bean
        ProducerFactory<String, String> producerFactory() {
            return new DefaultKafkaProducerFactory<>(TestBroker.producerProps());
        }

        @Bean
        KafkaTemplate<String, String> kafkaTemplate(ProducerFactory<String, String> producerFactory) {
            return new KafkaTemplate<>(producerFactory);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
                ConsumerFactory<String, String> consumerFactory, KafkaTemplate<String, String> template) {
            ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
            factory.setConsumerFactory(consumerFactory);
            factory.setConcurrency(2);
            DeadLetterPublishingRecoverer deadLetters = new DeadLetterPublishingRecoverer(template,
                    (record, failure) -> new TopicPartition(record.topic() + ".DLT", 0));
            factory.setCommonErrorHandler(IdempotentRecords.configure(new DefaultErrorHandler(deadLetters)));
            return factory;
        }

        @Bean(destroyMethod = "close")
        IdempotentCalls idempotentCalls() {
            return new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().build());
        }

        @Bean
        IdempotentRecords idempotentRecords(IdempotentCalls calls) {
            return IdempotentRecords.of(calls);
        }

        @Bean
        Orders orders(IdempotentRecords records) {
            return new Orders(records);
        }
    }

    static class Orders {

        final List<String> placed = new CopyOnWriteArrayList<>();
        private final IdempotentRecords records;

        Orders(IdempotentRecords records) {
            this.records = records;
        }

        @KafkaListener(topics = "${orders.topic}", groupId = "${orders.group}")
        void on(ConsumerRecord<String, String> record) {
            records.handle(record, context -> placed.add(record.value()));
        }
    }

    @Test
    void aReusedKeyAndAMissingKeyAreDeadLetteredWithoutRunning() {
        TestBroker.send(List.of(
                TestBroker.record(TOPIC, 0, "order-1", "{\"item\":\"book\"}"),
                TestBroker.record(TOPIC, 0, "order-1", "{\"item\":\"lamp\"}"),    // another body: refused
                TestBroker.record(TOPIC, 1, null, "{\"item\":\"pen\"}"),          // no key: refused
                TestBroker.record(TOPIC, 1, "order-2", "{\"item\":\"desk\"}"),
                TestBroker.record(TOPIC, 1, "order-1", "{\"item\":\"book\"}")));  // a duplicate: done

        List<String> deadLettered = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(TestBroker.consumerProps(TestBroker.uniqueName("reader")))) {
            reader.assign(List.of(new TopicPartition(DEAD_LETTERS, 0)));
            reader.seekToBeginning(List.of(new TopicPartition(DEAD_LETTERS, 0)));
            await().atMost(TestBroker.PATIENCE).untilAsserted(() -> {
                reader.poll(Duration.ofMillis(200)).forEach(r -> deadLettered.add(r.value()));
                assertThat(deadLettered).hasSize(2);
            });
        }
        await().atMost(TestBroker.PATIENCE).untilAsserted(() ->
                assertThat(TestBroker.committed(GROUP, TOPIC)).isEqualTo(TestBroker.endOffsets(TOPIC, 2)));

        assertThat(deadLettered).containsExactlyInAnyOrder("{\"item\":\"lamp\"}", "{\"item\":\"pen\"}");
        assertThat(app.getBean(Orders.class).placed).containsExactlyInAnyOrder("{\"item\":\"book\"}", "{\"item\":\"desk\"}");
    }
}
