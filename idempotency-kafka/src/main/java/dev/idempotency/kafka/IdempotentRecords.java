package dev.idempotency.kafka;

import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.RecordKey;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Idempotent Kafka listeners: a listener hands each record to {@link #handle}, which runs the handler
 * once per key through {@link IdempotentCalls} and settles the record as its outcome says
 * ({@link Settlement#of}): it returns when the record is done (the container commits its offset as
 * usual), and throws for the container's error handler otherwise — {@link RecordDeferredException}
 * to have it delivered again, {@link RecordRefusedException} to have it recovered without running.
 * Prepare that error handler with {@link #configure}.
 *
 * <p>The key comes from the {@link RecordKeys} given (by default the header
 * {@value #DEFAULT_KEY_HEADER}); a record without one is refused, never run without protection. The
 * scope is the record's topic unless one is given. The body the key is checked against is the record's
 * value as the calls' codec encodes it (with the default JSON codec, a {@code byte[]} value is its
 * bytes, a {@code String} its text). Thread-safe.
 */
public final class IdempotentRecords {

    /** The header the key is read from by default. */
    public static final String DEFAULT_KEY_HEADER = "Idempotency-Key";

    private static final Logger log = LoggerFactory.getLogger(IdempotentRecords.class);

    private final IdempotentCalls calls;
    private final RecordKeys keys;
    private final String scope;

    private IdempotentRecords(IdempotentCalls calls, RecordKeys keys, String scope) {
        this.calls = calls;
        this.keys = keys;
        this.scope = scope;
    }

    /** Keys from the header {@value #DEFAULT_KEY_HEADER}, each topic its own scope. */
    public static IdempotentRecords of(IdempotentCalls calls) {
        return builder(calls).build();
    }

    public static Builder builder(IdempotentCalls calls) {
        return new Builder(calls);
    }

    /**
     * Runs {@code handler} for {@code record} unless a record with its key ran or runs, on the calling
     * (listener) thread.
     *
     * @return the outcome, when the record is done: {@link CallOutcome.Executed} (the handler ran now),
     *         {@link CallOutcome.Replayed} or {@link CallOutcome.ResultNotStored} (it ran before)
     * @throws RecordDeferredException a record with this key still runs, or the store is unavailable:
     *                                 deliver it again later
     * @throws RecordRefusedException  its key was first used with another body, or it has no usable key
     *                                 (the engine refused the key, the scope or the body's size)
     * @throws X                       what the handler threw, unchanged (its key is released)
     */
    public <X extends Exception> CallOutcome<Void> handle(ConsumerRecord<?, ?> record, RecordHandler<X> handler)
            throws X {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(handler, "handler");
        String key = keys.keyOf(record).orElse(null);
        if (key == null) {
            log.warn("Record {}-{}@{} refused: it has no idempotency key", record.topic(), record.partition(),
                    record.offset());
            throw new RecordRefusedException(record, null, "it has no idempotency key", null);
        }
        AtomicBoolean started = new AtomicBoolean();
        CallOutcome<Void> outcome;
        try {
            IdempotentCall call = IdempotentCall.of(scope != null ? scope : record.topic(), key, record.value());
            outcome = calls.run(call, Void.class, context -> {
                started.set(true);
                handler.handle(context);
                return null;
            });
        } catch (IllegalArgumentException refused) {
            if (started.get()) {
                throw refused; // the handler's own
            }
            log.warn("Record {}-{}@{} (key {}) refused: the engine does not accept its key, scope or body",
                    record.topic(), record.partition(), record.offset(), RecordKey.preview(key));
            throw new RecordRefusedException(record, key, "the engine does not accept its key, scope or body", refused);
        }
        return settled(record, key, outcome);
    }

    private static CallOutcome<Void> settled(ConsumerRecord<?, ?> record, String key, CallOutcome<Void> outcome) {
        switch (Settlement.of(outcome)) {
            case DONE -> {
                if (!(outcome instanceof CallOutcome.Executed<Void>)) {
                    log.debug("Record {}-{}@{} (key {}) ran before: not run again", record.topic(),
                            record.partition(), record.offset(), RecordKey.preview(key));
                }
                return outcome;
            }
            case LATER -> {
                if (outcome instanceof CallOutcome.StorageUnavailable<Void> outage) {
                    throw new RecordDeferredException(record, key,
                            "the store is unavailable (" + outage.reason() + ")", outage.failure());
                }
                throw new RecordDeferredException(record, key, "a record with this key still runs", null);
            }
            default -> {
                log.warn("Record {}-{}@{} (key {}) refused: its key was first used with another body",
                        record.topic(), record.partition(), record.offset(), RecordKey.preview(key));
                throw new RecordRefusedException(record, key, "its key was first used with another body", null);
            }
        }
    }

    /**
     * Makes {@code errorHandler} settle what {@link #handle} throws: a {@link RecordRefusedException}
     * goes to its recoverer at once, a {@link RecordDeferredException} is retried after
     * {@code deferredBackOff} without end (give a back-off that never stops: one that stops hands the
     * record to the recoverer, which commits past it). Replaces the handler's back-off function; other
     * exceptions keep its back-off.
     */
    public static <H extends DefaultErrorHandler> H configure(H errorHandler, BackOff deferredBackOff) {
        Objects.requireNonNull(errorHandler, "errorHandler");
        Objects.requireNonNull(deferredBackOff, "deferredBackOff");
        errorHandler.addNotRetryableExceptions(RecordRefusedException.class);
        errorHandler.addRetryableExceptions(RecordDeferredException.class);
        errorHandler.setBackOffFunction((record, failure) -> isDeferred(failure) ? deferredBackOff : null);
        return errorHandler;
    }

    /**
     * {@link #configure(DefaultErrorHandler, BackOff)} with a back-off from 100 ms doubling up to 5 s,
     * without end.
     */
    public static <H extends DefaultErrorHandler> H configure(H errorHandler) {
        ExponentialBackOff backOff = new ExponentialBackOff(100, 2.0);
        backOff.setMaxInterval(5_000);
        backOff.setMaxElapsedTime(Long.MAX_VALUE);
        backOff.setMaxAttempts(Long.MAX_VALUE);
        return configure(errorHandler, backOff);
    }

    private static boolean isDeferred(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RecordDeferredException) {
                return true;
            }
        }
        return false;
    }

    /** Options of {@link IdempotentRecords}. */
    public static final class Builder {

        private final IdempotentCalls calls;
        private RecordKeys keys = RecordKeys.header(DEFAULT_KEY_HEADER);
        private String scope;

        private Builder(IdempotentCalls calls) {
            this.calls = Objects.requireNonNull(calls, "calls");
        }

        /** Where each record's key comes from; default: the header {@value IdempotentRecords#DEFAULT_KEY_HEADER}. */
        public Builder keys(RecordKeys keys) {
            this.keys = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /** Shorthand for {@code keys(RecordKeys.header(name))}. */
        public Builder keyHeader(String name) {
            return keys(RecordKeys.header(name));
        }

        /**
         * One scope for every record, such as {@code payments}: records of several topics share their
         * keys. Default: the record's topic.
         *
         * @throws IllegalArgumentException when it is not a scope {@link IdempotentCall#of} accepts
         */
        public Builder scope(String scope) {
            IdempotentCall.of(scope, "-", null);
            this.scope = scope;
            return this;
        }

        public IdempotentRecords build() {
            return new IdempotentRecords(calls, keys, scope);
        }
    }
}
