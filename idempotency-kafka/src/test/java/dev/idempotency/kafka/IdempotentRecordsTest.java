package dev.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The binding without a broker: keys, refusals, what a handler throws, scopes. */
class IdempotentRecordsTest {

    private final IdempotentCalls calls = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().build());
    private final AtomicInteger runs = new AtomicInteger();

    @AfterEach
    void close() {
        calls.close();
    }

    private static ConsumerRecord<String, String> record(String topic, long offset, String key, String body) {
        ConsumerRecord<String, String> record = new ConsumerRecord<>(topic, 0, offset, null, body);
        if (key != null) {
            record.headers().add(IdempotentRecords.DEFAULT_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }

    private CallOutcome<Void> handle(IdempotentRecords records, ConsumerRecord<?, ?> record) {
        return records.handle(record, context -> runs.incrementAndGet());
    }

    @Test
    void aRepeatOfTheKeyIsDoneWithoutRunning() {
        IdempotentRecords records = IdempotentRecords.of(calls);
        assertThat(handle(records, record("orders", 0, "order-12345", "a"))).isInstanceOf(CallOutcome.Executed.class);
        assertThat(handle(records, record("orders", 7, "order-12345", "a"))).isInstanceOf(CallOutcome.Replayed.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void anotherBodyUnderTheKeyIsRefusedAndTheMessageShowsOnlyAPreview() {
        IdempotentRecords records = IdempotentRecords.of(calls);
        handle(records, record("orders", 0, "order-secret-4711", "a"));
        assertThatThrownBy(() -> handle(records, record("orders", 1, "order-secret-4711", "b")))
                .isInstanceOfSatisfying(RecordRefusedException.class, e -> {
                    assertThat(e.settlement()).isEqualTo(Settlement.REFUSED);
                    assertThat(e.getMessage()).contains("orders-0@1").doesNotContain("secret");
                });
        assertThat(runs).hasValue(1);
    }

    @Test
    void aRecordWithoutAKeyIsRefusedWithoutRunning() {
        IdempotentRecords records = IdempotentRecords.of(calls);
        assertThatThrownBy(() -> handle(records, record("orders", 3, null, "a")))
                .isInstanceOf(RecordRefusedException.class).hasMessageContaining("no idempotency key");
        ConsumerRecord<String, String> empty = record("orders", 4, null, "a");
        empty.headers().add(IdempotentRecords.DEFAULT_KEY_HEADER, new byte[0]);
        assertThatThrownBy(() -> handle(records, empty)).isInstanceOf(RecordRefusedException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    void aKeyTheEngineDoesNotAcceptIsRefusedWithoutRunning() {
        IdempotentRecords records = IdempotentRecords.of(calls);
        assertThatThrownBy(() -> handle(records, record("orders", 0, "x".repeat(256), "a")))
                .isInstanceOf(RecordRefusedException.class).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> handle(records, record("orders", 1, "schlüssel-1", "a")))
                .isInstanceOf(RecordRefusedException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    void whatTheHandlerThrowsReachesTheContainerUnchangedAndReleasesTheKey() {
        IdempotentRecords records = IdempotentRecords.of(calls);
        IllegalArgumentException own = new IllegalArgumentException("the handler's own");
        assertThatThrownBy(() -> records.handle(record("orders", 0, "order-1", "a"), context -> {
            throw own;
        })).isSameAs(own);
        IOException checked = new IOException("checked");
        assertThatThrownBy(() -> records.handle(record("orders", 0, "order-1", "a"), context -> {
            throw checked;
        })).isSameAs(checked);
        assertThat(handle(records, record("orders", 0, "order-1", "a"))).isInstanceOf(CallOutcome.Executed.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void eachTopicIsItsOwnScopeUnlessOneIsGiven() {
        IdempotentRecords byTopic = IdempotentRecords.of(calls);
        handle(byTopic, record("orders", 0, "shared-key", "a"));
        handle(byTopic, record("orders-eu", 0, "shared-key", "a"));
        assertThat(runs).hasValue(2);

        IdempotentRecords oneScope = IdempotentRecords.builder(calls).scope("fulfilment").build();
        handle(oneScope, record("orders", 0, "shared-key", "a"));
        handle(oneScope, record("orders-eu", 0, "shared-key", "a"));
        assertThat(runs).hasValue(3);
        assertThatThrownBy(() -> IdempotentRecords.builder(calls).scope("a/b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysFromAnotherHeaderOrTheRecordsCoordinates() {
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 2, 41, null, "a");
        record.headers().add("X-Message-Id", "m-1".getBytes(StandardCharsets.UTF_8));
        record.headers().add("X-Message-Id", "m-2".getBytes(StandardCharsets.UTF_8));
        assertThat(RecordKeys.header("X-Message-Id").keyOf(record)).contains("m-2");
        assertThat(RecordKeys.header("Idempotency-Key").keyOf(record)).isEmpty();
        assertThat(RecordKeys.coordinates().keyOf(record)).contains("orders-2@41");
        assertThat(RecordKeys.header("Idempotency-Key").orElse(RecordKeys.coordinates()).keyOf(record))
                .isEqualTo(Optional.of("orders-2@41"));

        IdempotentRecords records = IdempotentRecords.builder(calls).keyHeader("X-Message-Id").build();
        handle(records, record);
        handle(records, record);
        assertThat(runs).hasValue(1);
    }
}
