package dev.idempotency.nats;

import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.RecordKey;
import io.nats.client.Message;
import io.nats.client.MessageHandler;
import io.nats.client.impl.Headers;
import java.lang.reflect.UndeclaredThrowableException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles JetStream deliveries (explicit acknowledgement) as {@link IdempotentCalls}: the key is the
 * message's {@value #MESSAGE_ID} header (or a header the application names), the input the message
 * body — its SHA-256, so a body of any size is fingerprinted — and the scope
 * {@code <stream>.<consumer>}, the names of the stream and consumer that delivered it (or one the
 * application names). The delivery is settled from {@link Settlement#of}: {@code DONE} is
 * {@link Message#ack()}, {@code LATER} {@link Message#nakWithDelay(Duration)}, {@code REFUSED}
 * {@link Message#term()}. A message without a key is refused without running, as is one the engine
 * refuses (a key that is not 1 to 255 printable ASCII characters). An action that throws leaves the
 * message unacknowledged, for the client's usual failure handling. Thread-safe.
 */
public final class IdempotentConsumer {

    /** The publisher's deduplication id, the default key header. */
    public static final String MESSAGE_ID = "Nats-Msg-Id";

    private static final Logger log = LoggerFactory.getLogger(IdempotentConsumer.class);

    private final IdempotentCalls calls;
    private final String scope;
    private final String keyHeader;
    private final Duration redeliveryDelay;

    private IdempotentConsumer(Builder builder) {
        this.calls = builder.calls;
        this.scope = builder.scope;
        this.keyHeader = builder.keyHeader;
        this.redeliveryDelay = builder.redeliveryDelay != null ? builder.redeliveryDelay
                : calls.config().inFlightWait().plus(calls.config().retryAfter());
    }

    /** A consumer over {@code calls}, whose configuration (mode, store, in-flight wait) applies. */
    public static Builder builder(IdempotentCalls calls) {
        return new Builder(calls);
    }

    /**
     * Runs {@code action} for {@code message} unless a message with its key ran or runs, then settles
     * the delivery. For a pull subscription's loop.
     *
     * @return how the delivery was settled
     * @throws X                        what the action threw; the message is left unacknowledged
     * @throws IllegalArgumentException when the message is no JetStream delivery
     * @throws IllegalStateException    when no scope was named and the stream's and consumer's names
     *                                  make none
     */
    @SuppressWarnings("unchecked")
    public <X extends Exception> Settlement handle(Message message, MessageAction<X> action) throws X {
        Objects.requireNonNull(action, "action");
        if (!Objects.requireNonNull(message, "message").isJetStream()) {
            throw new IllegalArgumentException("Not a JetStream delivery: it cannot be acknowledged");
        }
        String callScope = scopeOf(message);
        String key = keyOf(message);
        if (key == null) {
            log.warn("A message of {} has no {} header: terminated without running", callScope, keyHeader);
            return settle(message, Settlement.REFUSED);
        }
        CallOutcome<Void> outcome;
        try {
            outcome = calls.run(IdempotentCall.of(callScope, key, digest(message.getData())), Void.class, context -> {
                try {
                    action.handle(message, context);
                    return null;
                } catch (Exception e) {
                    throw new ActionFailed(e);
                }
            });
        } catch (ActionFailed failed) {
            throw (X) failed.getCause();
        } catch (IllegalArgumentException refused) {
            log.warn("A message of {} with key {} was refused by the engine (its key, tenant or caller): "
                    + "terminated without running", callScope, RecordKey.preview(key));
            return settle(message, Settlement.REFUSED);
        }
        Settlement settlement = Settlement.of(outcome);
        log.debug("Message of {} with key {}: {} -> {}", callScope, RecordKey.preview(key),
                outcome.getClass().getSimpleName(), settlement);
        return settle(message, settlement);
    }

    /**
     * {@code action} as a push subscription's handler (explicit acknowledgement: subscribe with
     * {@code autoAck} off). A checked exception the action throws reaches the dispatcher wrapped in an
     * {@link UndeclaredThrowableException}, an {@link InterruptedException} as it is.
     */
    public MessageHandler handler(MessageAction<?> action) {
        @SuppressWarnings("unchecked")
        MessageAction<Exception> throwing = (MessageAction<Exception>) Objects.requireNonNull(action, "action");
        return message -> {
            try {
                handle(message, throwing);
            } catch (RuntimeException | InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new UndeclaredThrowableException(e);
            }
        };
    }

    /** How long a delivery settled {@link Settlement#LATER} waits before it is delivered again. */
    public Duration redeliveryDelay() {
        return redeliveryDelay;
    }

    private Settlement settle(Message message, Settlement settlement) {
        switch (settlement) {
            // ack(), not ackSync(): a lost acknowledgement only brings the message back, and the
            // repeat is acknowledged without running.
            case DONE -> message.ack();
            case LATER -> message.nakWithDelay(redeliveryDelay);
            case REFUSED -> message.term();
        }
        return settlement;
    }

    private String scopeOf(Message message) {
        if (scope != null) {
            return scope;
        }
        // A consumer's name is unique within its stream only; neither name may contain a dot.
        String streamAndConsumer = message.metaData().getStream() + "." + message.metaData().getConsumer();
        try {
            return IdempotentCall.of(streamAndConsumer, "scope-check", null).scope();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("The stream's and consumer's names cannot make a scope (1 to "
                    + IdempotentCall.MAX_SCOPE_LENGTH + " letters, digits and '-', '.', '_', '~'): name one", e);
        }
    }

    private String keyOf(Message message) {
        Headers headers = message.getHeaders();
        String key = headers == null ? null : headers.getFirst(keyHeader);
        return key == null || key.isEmpty() ? null : key;
    }

    private static String digest(byte[] body) {
        try {
            byte[] bytes = body == null ? new byte[0] : body;
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }

    /** Carries the action's exception past the engine, which rethrows it unchanged. */
    private static final class ActionFailed extends RuntimeException {
        ActionFailed(Exception cause) {
            super(null, cause, false, false);
        }
    }

    /** Builds an {@link IdempotentConsumer}. */
    public static final class Builder {

        private final IdempotentCalls calls;
        private String scope;
        private String keyHeader = MESSAGE_ID;
        private Duration redeliveryDelay;

        private Builder(IdempotentCalls calls) {
            this.calls = Objects.requireNonNull(calls, "calls");
        }

        /**
         * The scope the keys are filed under. Default: {@code <stream>.<consumer>}, the names of the
         * stream and consumer that delivered the message, so that two consumers of one stream each run
         * a message once — name a durable consumer, or a scope: an ephemeral consumer's name changes.
         *
         * @throws IllegalArgumentException when it is not 1 to 100 letters, digits and {@code - . _ ~}
         */
        public Builder scope(String scope) {
            this.scope = IdempotentCall.of(scope, "scope-check", null).scope();
            return this;
        }

        /** The header whose value is the key. Default {@value IdempotentConsumer#MESSAGE_ID}. */
        public Builder keyHeader(String keyHeader) {
            Objects.requireNonNull(keyHeader, "keyHeader");
            if (keyHeader.isBlank()) {
                throw new IllegalArgumentException("The key header must be named");
            }
            this.keyHeader = keyHeader;
            return this;
        }

        /**
         * How long a delivery settled {@link Settlement#LATER} (a duplicate in flight, a storage outage)
         * waits before it is delivered again. Default: the calls' {@code inFlightWait} plus their
         * {@code retryAfter}.
         *
         * @throws IllegalArgumentException when it is not positive
         */
        public Builder redeliveryDelay(Duration redeliveryDelay) {
            if (Objects.requireNonNull(redeliveryDelay, "redeliveryDelay").isNegative() || redeliveryDelay.isZero()) {
                throw new IllegalArgumentException("The redelivery delay must be positive");
            }
            this.redeliveryDelay = redeliveryDelay;
            return this;
        }

        public IdempotentConsumer build() {
            return new IdempotentConsumer(this);
        }
    }
}
