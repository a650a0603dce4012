package dev.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * Records settled by their outcome on a real (in-process) broker, two consumers of one group on a
 * topic of several partitions, the store in memory: duplicates run once, an in-flight duplicate comes
 * back and settles without running, a store outage commits nothing until the store is back.
 */
class RecordSettlementTest {

    private static final List<String> topics = new ArrayList<>();

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicInteger deferred = new AtomicInteger();
    private ConcurrentMessageListenerContainer<String, String> container;
    private IdempotentCalls calls;

    @AfterEach
    void stop() {
        if (container != null) {
            container.stop();
        }
        if (calls != null) {
            calls.close();
        }
    }

    @AfterAll
    static void deleteTopics() {
        TestBroker.deleteTopics(topics.toArray(String[]::new));
    }

    private static String topic(int partitions) {
        String topic = TestBroker.uniqueName("settle");
        TestBroker.createTopic(topic, partitions);
        topics.add(topic);
        return topic;
    }

    /** Two consumers in one group; the listener hands each record to {@code records}. */
    private void consume(String topic, String group, int partitions, IdempotentRecords records,
                         Function<ConsumerRecord<String, String>, RecordHandler<RuntimeException>> handlerFor) {
        container = TestConsumers.start(topic, group, 2, partitions, record -> {
            try {
                records.handle(record, handlerFor.apply(record));
                done.incrementAndGet();
            } catch (RecordDeferredException e) {
                deferred.incrementAndGet();
                throw e;
            }
        }, IdempotentRecords.configure(new DefaultErrorHandler()));
    }

    private void awaitAllCommitted(String group, String topic, int partitions) {
        await().atMost(TestBroker.PATIENCE).untilAsserted(() ->
                assertThat(TestBroker.committed(group, topic)).isEqualTo(TestBroker.endOffsets(topic, partitions)));
    }

    @Test
    void duplicatesAcrossPartitionsAndConsumersRunOncePerKey() {
        int partitions = 4;
        int distinct = 30;
        int copies = 3;
        String topic = topic(partitions);
        String group = TestBroker.uniqueName("group");
        calls = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().build());
        IdempotentRecords records = IdempotentRecords.of(calls);
        consume(topic, group, partitions, records, record -> {
            String key = new String(record.headers().lastHeader(IdempotentRecords.DEFAULT_KEY_HEADER).value(),
                    StandardCharsets.UTF_8);
            return context -> runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        });

        List<ProducerRecord<String, String>> sent = new ArrayList<>();
        for (int copy = 0; copy < copies; copy++) {
            for (int i = 0; i < distinct; i++) {
                // each copy of a key on another partition: duplicates meet on different consumers
                sent.add(TestBroker.record(topic, (i + copy) % partitions, "order-" + i, "{\"order\":" + i + "}"));
            }
        }
        TestBroker.send(sent);

        awaitAllCommitted(group, topic, partitions);
        assertThat(done).hasValue(distinct * copies);
        assertThat(runs).hasSize(distinct);
        assertThat(runs.values()).allSatisfy(count -> assertThat(count).hasValue(1));
    }

    @Test
    void aDuplicateInFlightComesBackAndSettlesWithoutRunning() throws Exception {
        int partitions = 2;
        String topic = topic(partitions);
        String group = TestBroker.uniqueName("group");
        calls = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().inFlightWait(Duration.ZERO).build());
        IdempotentRecords records = IdempotentRecords.of(calls);
        CountDownLatch firstRuns = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        consume(topic, group, partitions, records, record -> context -> {
            ran.incrementAndGet();
            firstRuns.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        TestBroker.send(List.of(TestBroker.record(topic, 0, "pay-1", "{\"cents\":500}")));
        assertThat(firstRuns.await(30, TimeUnit.SECONDS)).isTrue();
        TestBroker.send(List.of(TestBroker.record(topic, 1, "pay-1", "{\"cents\":500}")));

        // the duplicate is tried, deferred and tried again while the first still runs; nothing past it is committed
        await().atMost(TestBroker.PATIENCE).until(() -> deferred.get() >= 2);
        assertThat(TestBroker.committed(group, topic).getOrDefault(1, 0L)).isZero();
        assertThat(ran).hasValue(1);

        release.countDown();
        awaitAllCommitted(group, topic, partitions);
        assertThat(ran).hasValue(1);
        assertThat(done).hasValue(2);
    }

    @Test
    void duringAStoreOutageNothingIsCommittedAndTheRecordsRunOnceItIsBack() {
        int partitions = 2;
        int count = 6;
        String topic = topic(partitions);
        String group = TestBroker.uniqueName("group");
        OutageStore store = new OutageStore(new InMemoryStore());
        store.outage(StorageUnavailableException.Reason.UNREACHABLE);
        calls = new IdempotentCalls(store, IdempotencyConfig.builder().build());
        IdempotentRecords records = IdempotentRecords.of(calls);
        AtomicInteger ran = new AtomicInteger();
        consume(topic, group, partitions, records, record -> context -> ran.incrementAndGet());

        List<ProducerRecord<String, String>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(TestBroker.record(topic, i % partitions, "job-" + i, "{\"job\":" + i + "}"));
        }
        TestBroker.send(sent);

        // both partitions' first records come back again and again
        await().atMost(TestBroker.PATIENCE).until(() -> deferred.get() >= 6);
        assertThat(ran).hasValue(0);
        assertThat(TestBroker.committed(group, topic).values()).allSatisfy(offset -> assertThat(offset).isZero());

        store.outage(null);
        awaitAllCommitted(group, topic, partitions);
        assertThat(ran).hasValue(count);
        assertThat(done).hasValue(count);
    }
}
