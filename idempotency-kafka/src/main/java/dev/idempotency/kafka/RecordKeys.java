package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Where a record's idempotency key comes from: Kafka gives a record no message id. The default is
 * the header {@value IdempotentRecords#DEFAULT_KEY_HEADER} that the producer sets; a record with no
 * key is refused (see {@link IdempotentRecords}).
 */
@FunctionalInterface
public interface RecordKeys {

    /** The key of {@code record}, or empty when it has none. */
    Optional<String> keyOf(ConsumerRecord<?, ?> record);

    /** The last header named {@code name}, as UTF-8; empty when absent or of no bytes. */
    static RecordKeys header(String name) {
        Objects.requireNonNull(name, "name");
        return record -> {
            Header header = record.headers().lastHeader(name);
            return header == null || header.value() == null || header.value().length == 0
                    ? Optional.empty()
                    : Optional.of(new String(header.value(), StandardCharsets.UTF_8));
        };
    }

    /**
     * {@code topic-partition@offset}: the same record delivered again (a rebalance, a crash before the
     * offset commit) has the same key, but a producer's duplicate (a retry, a resend) is another record
     * at another offset and is not recognized.
     */
    static RecordKeys coordinates() {
        return record -> Optional.of(record.topic() + "-" + record.partition() + "@" + record.offset());
    }

    /** This key, or {@code other}'s where this one has none. */
    default RecordKeys orElse(RecordKeys other) {
        Objects.requireNonNull(other, "other");
        return record -> {
            Optional<String> key = keyOf(record);
            return key.isPresent() ? key : other.keyOf(record);
        };
    }
}
