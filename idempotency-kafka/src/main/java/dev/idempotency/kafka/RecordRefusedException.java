package dev.idempotency.kafka;

import dev.idempotency.core.call.Settlement;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * {@link Settlement#REFUSED}: the record's key was first used with another body, or the record has
 * no usable key. Not retryable: an error handler prepared by {@link IdempotentRecords#configure}
 * hands it to its recoverer at once (a {@code DeadLetterPublishingRecoverer} publishes it to the
 * dead-letter topic; the default one logs it and skips it), and the offset moves past it.
 */
public final class RecordRefusedException extends IdempotentRecordException {

    RecordRefusedException(ConsumerRecord<?, ?> record, String key, String why, Throwable cause) {
        super(Settlement.REFUSED, record, key, why, cause);
    }
}
