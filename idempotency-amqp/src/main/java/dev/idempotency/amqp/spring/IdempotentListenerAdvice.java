package dev.idempotency.amqp.spring;

import dev.idempotency.amqp.internal.MessageCalls;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.CallContext;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.Store;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;

/**
 * Idempotent Spring AMQP listeners: an advice for a listener container's advice chain
 * ({@code SimpleRabbitListenerContainerFactory.setAdviceChain(advice)}, outermost, before a retry
 * interceptor) with the container's {@code AcknowledgeMode.AUTO}. A message's key is its
 * {@code messageId} (or a header the application names), its body the call's input, and its scope the
 * queue it was consumed from (or one the application names). From the {@link Settlement}:
 * <ul>
 *   <li>{@code DONE}: the listener ran now, or not at all for a duplicate of one that ran; the advice
 *       returns and the container acknowledges;
 *   <li>{@code LATER} (a duplicate still running, or the store unavailable): after the requeue delay, an
 *       {@link ImmediateRequeueAmqpException} (in a {@code ListenerExecutionFailedException}): the
 *       container requeues it, whatever its {@code defaultRequeueRejected};
 *   <li>{@code REFUSED} (its key was first used with another body; or it has no key, or one the engine
 *       refuses, or a body over {@code maxRequestBodyBytes}): an {@link AmqpRejectAndDontRequeueException}
 *       (in a {@code ListenerExecutionFailedException}):
 *       rejected without requeue, to the queue's dead-letter exchange if any. Such a message never runs.
 * </ul>
 * A listener that throws releases the key and its exception reaches the container unchanged, for its
 * usual handling (error handler, requeue or not). Batch listeners are not supported.
 *
 * <p>Thread-safe; closed with its bean, or {@link #close()} it on shutdown (its engine owns a timer thread).
 */
public final class IdempotentListenerAdvice implements MethodInterceptor, AutoCloseable {

    private static final ThreadLocal<CallContext> CURRENT = new ThreadLocal<>();

    private final MessageCalls calls;
    private final String scope;

    private IdempotentListenerAdvice(Builder builder) {
        this.calls = MessageCalls.over(builder.store, builder.config, builder.keyHeader, builder.requeueDelay);
        this.scope = builder.scope;
    }

    public static Builder builder(Store store, IdempotencyConfig config) {
        return new Builder(store, config);
    }

    /**
     * The context of the message the current thread's listener handles under this advice: in the
     * atomic mode of the JDBC store, {@code context().orElseThrow().unwrap(java.sql.Connection.class)}
     * is the transaction that commits with the record. Empty outside a listener so advised.
     */
    public static Optional<CallContext> context() {
        return Optional.ofNullable(CURRENT.get());
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object[] arguments = invocation.getArguments();
        if (arguments.length != 2 || !(arguments[1] instanceof Message message)) {
            throw new IllegalStateException("IdempotentListenerAdvice advises a container's invokeListener for one "
                    + "message at a time; batch listeners are not supported");
        }
        MessageProperties properties = message.getMessageProperties();
        String key = calls.keyHeader() == null ? properties.getMessageId()
                : MessageCalls.keyOf(properties.getHeader(calls.keyHeader()));
        Settlement settlement = calls.settle(scopeOf(properties), key, message.getBody(), context -> {
            CURRENT.set(context);
            try {
                invocation.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("The listener failed", t);
            } finally {
                CURRENT.remove();
            }
        });
        return switch (settlement) {
            case DONE -> null;
            case LATER -> throw failed(message, new ImmediateRequeueAmqpException("Not now: its duplicate runs, or "
                    + "the idempotency store is unavailable"));
            case REFUSED -> throw failed(message, new AmqpRejectAndDontRequeueException("Refused: no usable key, or "
                    + "its key was first used with another body"));
        };
    }

    /**
     * {@code why} as a listener's failure, as Spring's own retry recoverers throw it: the simple container
     * keeps its consumer for a listener's failure, and restarts it (after its recovery interval) for any
     * other exception.
     */
    private static ListenerExecutionFailedException failed(Message message, RuntimeException why) {
        return new ListenerExecutionFailedException(why.getMessage(), why, message);
    }

    private String scopeOf(MessageProperties properties) {
        if (scope != null) {
            return scope;
        }
        String queue = properties.getConsumerQueue();
        try {
            return IdempotentCall.of(queue, "-", null).scope();
        } catch (IllegalArgumentException | NullPointerException notAName) {
            throw new IllegalStateException("The queue's name cannot be a scope: give the advice one (builder.scope)",
                    notAName);
        }
    }

    /** Stops the engine's timer thread. */
    @Override
    public void close() {
        calls.close();
    }

    /** Options of {@link IdempotentListenerAdvice}. */
    public static final class Builder {

        private final Store store;
        private final IdempotencyConfig config;
        private String scope;
        private String keyHeader;
        private Duration requeueDelay = Duration.ofSeconds(1);

        private Builder(Store store, IdempotencyConfig config) {
            this.store = Objects.requireNonNull(store, "store");
            this.config = Objects.requireNonNull(config, "config");
        }

        /**
         * Files every key under this scope instead of the consumer's queue name (needed when that name
         * is not 1 to 100 letters, digits and {@code - . _ ~}).
         *
         * @throws IllegalArgumentException when it is not such a name
         */
        public Builder scope(String scope) {
            this.scope = IdempotentCall.of(scope, "-", null).scope();
            return this;
        }

        /** Reads the key from this header instead of the {@code messageId} property. */
        public Builder keyHeader(String name) {
            this.keyHeader = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * How long the listener's thread waits before a {@code LATER} message is requeued, default one
         * second; zero requeues at once (RabbitMQ redelivers it straight away: without a delay a duplicate
         * in flight, or every message during a store outage, circles as fast as the consumers go).
         */
        public Builder requeueDelay(Duration delay) {
            this.requeueDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /** @throws IllegalArgumentException when the delay is negative, or the mode needs what the store cannot do */
        public IdempotentListenerAdvice build() {
            return new IdempotentListenerAdvice(this);
        }
    }
}
