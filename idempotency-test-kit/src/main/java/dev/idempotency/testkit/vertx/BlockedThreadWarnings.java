package dev.idempotency.testkit.vertx;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.testkit.InterceptingStore;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * A Vert.x instance whose blocked-thread checker is strict — it looks every 10 ms and complains
 * about an event loop busy for 100 ms (Vert.x's default is 2 s) — and the warnings it logged,
 * each with the blocked thread's stack at that moment. Vert.x logs through SLF4J when it finds
 * it, so the warnings are collected from the checker's logger.
 *
 * <p>An event loop also stalls for reasons of its own (class loading and JIT in a fresh JVM, a
 * burst of new connections on a busy machine). So callers warm up first, and a warning counts
 * against the adapter only when the blocked thread was inside the engine or a store
 * ({@link Warning#inEngineOrStore()}) — which is what "the event loop never waits for storage"
 * rules out. The others are still logged by Vert.x.
 *
 * <p>Needs {@code io.vertx:vertx-core} and {@code ch.qos.logback:logback-classic} on the test
 * classpath (optional dependencies of the test kit).
 */
public final class BlockedThreadWarnings implements AutoCloseable {

    /** How long an event loop may be busy before the checker warns. */
    public static final long MAX_EVENT_LOOP_MILLIS = 100;

    private static final String CHECKER_LOGGER = "io.vertx.core.impl.BlockedThreadChecker";
    private static final Set<String> WAITS = Set.of("jdk.internal.misc.Unsafe.park", "java.lang.Thread.sleep",
            "java.lang.Thread.sleep0", "java.lang.Object.wait", "java.lang.Object.wait0", "sun.nio.ch.Net.poll");

    /** One warning: the checker's message and the stack of the blocked thread. */
    public record Warning(String message, List<StackTraceElement> stack) {

        /**
         * Whether the blocked thread was running engine or store code: core, the JDBC, Vert.x SQL
         * and Redis stores, a test store.
         */
        public boolean inEngineOrStore() {
            return stack.stream().map(StackTraceElement::getClassName).anyMatch(name ->
                    name.startsWith("dev.idempotency.core.") || name.startsWith("dev.idempotency.jdbc.")
                            || name.startsWith("dev.idempotency.vertx.sql.") || name.startsWith("dev.idempotency.redis.")
                            || name.startsWith(InterceptingStore.class.getName()));
        }

        /**
         * Whether the blocked thread was caught waiting — parked, asleep, on a monitor or a socket —
         * rather than merely slow: on a starved CPU, code meant to run on the event loop (the engine
         * over a non-blocking store) can look blocked for 100 ms without ever waiting.
         */
        public boolean waiting() {
            return !stack.isEmpty() && WAITS.contains(stack.get(0).getClassName() + "." + stack.get(0).getMethodName());
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder(message);
            stack.forEach(frame -> text.append("\n    at ").append(frame));
            return text.toString();
        }
    }

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(CHECKER_LOGGER);
    private final Vertx vertx;

    /** A new Vert.x instance with the strict checker; close it after the test. */
    public BlockedThreadWarnings() {
        appender.start();
        logger.addAppender(appender);
        vertx = Vertx.vertx(new VertxOptions()
                .setBlockedThreadCheckInterval(10).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
                .setMaxEventLoopExecuteTime(MAX_EVENT_LOOP_MILLIS).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
                // Log where a blocked thread stands right away, not after the default 5 s.
                .setWarningExceptionTime(MAX_EVENT_LOOP_MILLIS).setWarningExceptionTimeUnit(TimeUnit.MILLISECONDS));
    }

    /** The Vert.x instance to run the servers under test on. */
    public Vertx vertx() {
        return vertx;
    }

    /** The warnings logged since the last call. */
    public synchronized List<Warning> takeWarnings() {
        List<ILoggingEvent> events = List.copyOf(appender.list);
        appender.list.removeAll(events);
        return events.stream().map(BlockedThreadWarnings::warning).toList();
    }

    private static Warning warning(ILoggingEvent event) {
        List<StackTraceElement> stack = event.getThrowableProxy() == null ? List.of()
                : Arrays.stream(event.getThrowableProxy().getStackTraceElementProxyArray())
                        .map(StackTraceElementProxy::getStackTraceElement).toList();
        return new Warning(event.getFormattedMessage(), stack);
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        logger.detachAppender(appender);
    }
}
