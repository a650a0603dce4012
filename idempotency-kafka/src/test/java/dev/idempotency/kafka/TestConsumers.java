package dev.idempotency.kafka;

import static org.awaitility.Awaitility.await;

import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.test.utils.ContainerTestUtils;

/**
 * A started container of {@code consumers} consumers (at most the partitions) in one group, each
 * given its partitions.
 */
final class TestConsumers {

    private TestConsumers() {
    }

    static ConcurrentMessageListenerContainer<String, String> start(String topic, String group, int consumers,
                                                                    int partitions,
                                                                    MessageListener<String, String> listener,
                                                                    CommonErrorHandler errorHandler) {
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setGroupId(group);
        properties.setMessageListener(listener);
        ConcurrentMessageListenerContainer<String, String> container = new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(TestBroker.consumerProps(group)), properties);
        container.setConcurrency(consumers);
        container.setCommonErrorHandler(errorHandler);
        container.start();
        ContainerTestUtils.waitForAssignment(container, partitions);
        // The total can be reached while the first consumer to join holds every partition, before the
        // rebalance that gives the others theirs; a handler that blocks then holds them all. Wait for it.
        await().atMost(TestBroker.PATIENCE).until(() -> container.getContainers().stream()
                .allMatch(consumer -> !consumer.getAssignedPartitions().isEmpty())
                && container.getAssignedPartitions().size() == partitions);
        return container;
    }
}
