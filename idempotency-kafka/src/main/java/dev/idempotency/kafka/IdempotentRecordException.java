package dev.idempotency.kafka;

import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.RecordKey;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record whose handler did not run, thrown from {@link IdempotentRecords#handle} so that the
 * container's error handler settles it. The message names the record by topic, partition and offset,
 * and its key only as a preview.
 */
public abstract sealed class IdempotentRecordException extends RuntimeException
        permits RecordDeferredException, RecordRefusedException {

    private final Settlement settlement;

    IdempotentRecordException(Settlement settlement, ConsumerRecord<?, ?> record, String key, String why,
                              Throwable cause) {
        super("Record " + record.topic() + "-" + record.partition() + "@" + record.offset()
                + (key == null ? "" : " (key " + RecordKey.preview(key) + ")") + ": " + why, cause);
        this.settlement = settlement;
    }

    /** {@link Settlement#LATER} or {@link Settlement#REFUSED}. */
    public Settlement settlement() {
        return settlement;
    }
}
