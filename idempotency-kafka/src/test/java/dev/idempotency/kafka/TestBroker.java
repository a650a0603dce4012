package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.test.EmbeddedKafkaBroker;

/**
 * The in-process KRaft broker that every test class of the run shares (spring-kafka-test's global
 * listener starts it before the first class and stops it after the last), and what the tests do with it: topics with a random suffix, records with a key header,
 * the group's committed offsets.
 */
final class TestBroker {

    private TestBroker() {
    }

    /** The broker spring-kafka-test's global listener started (see junit-platform.properties). */
    static String bootstrap() {
        String brokers = System.getProperty(EmbeddedKafkaBroker.SPRING_EMBEDDED_KAFKA_BROKERS);
        if (brokers == null) {
            throw new IllegalStateException("No embedded broker: junit-platform.properties enables "
                    + "spring-kafka-test's GlobalEmbeddedKafkaTestExecutionListener");
        }
        return brokers;
    }

    static String uniqueName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", bootstrap()));
    }

    static void createTopic(String topic, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    static void deleteTopics(String... topics) {
        try (Admin admin = admin()) {
            admin.deleteTopics(List.of(topics)).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Object> consumerProps(String group) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return props;
    }

    static Map<String, Object> producerProps() {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return props;
    }

    /** One record, on {@code partition}, with the key header when {@code key} is not null. */
    static ProducerRecord<String, String> record(String topic, int partition, String key, String body) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, null, body);
        if (key != null) {
            record.headers().add(IdempotentRecords.DEFAULT_KEY_HEADER, key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return record;
    }

    /** Sends {@code records} and waits until the broker has them all. */
    static void send(List<ProducerRecord<String, String>> records) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (ProducerRecord<String, String> record : records) {
                sent.add(producer.send(record));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The offsets {@code group} committed on {@code topic}, by partition (absent: none committed). */
    static Map<Integer, Long> committed(String group, String topic) {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<Integer, Long> byPartition = new HashMap<>();
            offsets.forEach((tp, om) -> {
                if (tp.topic().equals(topic) && om != null) {
                    byPartition.put(tp.partition(), om.offset());
                }
            });
            return byPartition;
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The end offset of each partition of {@code topic}. */
    static Map<Integer, Long> endOffsets(String topic, int partitions) {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                request.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<Integer, Long> ends = new HashMap<>();
            admin.listOffsets(request).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    static final Duration PATIENCE = Duration.ofSeconds(30);
}
