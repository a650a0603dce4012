package dev.idempotency.kafka;

import dev.idempotency.core.call.Settlement;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * {@link Settlement#LATER}: a record with the same key still runs, or the store could not be used.
 * Retryable: an error handler prepared by {@link IdempotentRecords#configure} seeks back and
 * delivers it again after a back-off, for as long as it takes, and never commits past it.
 */
public final class RecordDeferredException extends IdempotentRecordException {

    RecordDeferredException(ConsumerRecord<?, ?> record, String key, String why, Throwable cause) {
        super(Settlement.LATER, record, key, why, cause);
    }
}
