package dev.idempotency.amqp.internal;

import com.rabbitmq.client.LongString;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.CallContext;
import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both faces share: a message's call (its key, its body as the input) decided by
 * {@link IdempotentCalls}, and its {@link Settlement} — the pause before a {@code LATER} included. A
 * message without a usable key is {@code REFUSED} without running. Not part of the API.
 */
public final class MessageCalls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MessageCalls.class);

    /** The handler's part: runs at most once per key while the record lives. */
    @FunctionalInterface
    public interface Work {
        void run(CallContext context) throws Exception;
    }

    private final IdempotentCalls calls;
    private final String keyHeader;
    private final Duration requeueDelay;

    private MessageCalls(IdempotentCalls calls, String keyHeader, Duration requeueDelay) {
        this.calls = calls;
        this.keyHeader = keyHeader;
        this.requeueDelay = requeueDelay;
    }

    /**
     * Calls over {@code store}, with the message body as the input.
     *
     * @param keyHeader    the header holding the key, or {@code null} for the {@code message-id} property
     * @param requeueDelay how long a {@code LATER} waits before it is returned
     * @throws IllegalArgumentException when the delay is negative, or the mode needs what the store cannot do
     */
    public static MessageCalls over(Store store, IdempotencyConfig config, String keyHeader, Duration requeueDelay) {
        return new MessageCalls(new IdempotentCalls(store, config, BodyCodec.INSTANCE), keyHeader,
                checkedDelay(requeueDelay));
    }

    private static Duration checkedDelay(Duration delay) {
        Objects.requireNonNull(delay, "requeueDelay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("requeueDelay must not be negative");
        }
        return delay;
    }

    /** The header the key is read from, or {@code null} for the {@code message-id} property. */
    public String keyHeader() {
        return keyHeader;
    }

    /**
     * A header's value as a key: text (an AMQP long string, a {@code String}, UTF-8 bytes) or a number;
     * {@code null} for anything else.
     */
    public static String keyOf(Object value) {
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (value instanceof CharSequence || value instanceof Number
                || value instanceof LongString) {
            return value.toString();
        }
        return null;
    }

    /**
     * Runs {@code work} once per ({@code scope}, {@code key}) and says what to do with the delivery. A
     * {@code LATER} returns after the requeue delay. What the work throws is rethrown unchanged (the key
     * is released).
     *
     * @param key  the message's key, or {@code null} when it has none: {@code REFUSED}, not run
     * @param body the message body, the call's input
     */
    public Settlement settle(String scope, String key, byte[] body, Work work) throws Exception {
        if (key == null || key.isBlank()) {
            log.warn("A message on {} has no key ({}): rejected without running it", scope, keySource());
            return Settlement.REFUSED;
        }
        boolean[] started = {false};
        CallOutcome<Void> outcome;
        try {
            outcome = calls.run(IdempotentCall.of(scope, key, body), Void.class, context -> {
                started[0] = true;
                work.run(context);
                return null;
            });
        } catch (IllegalArgumentException refused) {
            if (started[0]) {
                throw refused; // the handler's own
            }
            // Its key or size can never pass: redelivering it would loop.
            log.warn("A message on {} (key_preview={}) cannot be keyed ({}): rejected without running it", scope,
                    RecordKey.preview(key), refused.getMessage());
            return Settlement.REFUSED;
        }
        Settlement settlement = Settlement.of(outcome);
        log.debug("Message on {} key_preview={}: {} -> {}", scope, RecordKey.preview(key),
                outcome.getClass().getSimpleName(), settlement);
        if (settlement == Settlement.LATER) {
            pause();
        }
        return settlement;
    }

    private String keySource() {
        return keyHeader == null ? "message-id" : "header " + keyHeader;
    }

    /** Bounds the redelivery loop of a duplicate in flight or an outage: the delivery returns at most once a delay. */
    private void pause() {
        if (requeueDelay.isZero()) {
            return;
        }
        try {
            Thread.sleep(requeueDelay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // requeue now: the consumer is stopping
        }
    }

    /** Stops the engine's timer thread. */
    @Override
    public void close() {
        calls.close();
    }
}
