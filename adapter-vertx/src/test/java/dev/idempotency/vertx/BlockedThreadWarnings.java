package dev.idempotency.vertx;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * A Vert.x instance whose blocked-thread checker is strict — it looks every 10 ms and complains
 * about an event loop busy for 100 ms (Vert.x's default is 2 s) — and the warnings it logged.
 * Vert.x logs through SLF4J when it finds it, so the warnings are collected from the checker's
 * logger. Lower limits were tried: on a small shared machine the first requests of a fresh JVM
 * (class loading, JIT) and plain CPU contention trip 20–50 ms inside Netty itself, so callers
 * warm up first and {@link #takeWarnings()} what that produced.
 */
final class BlockedThreadWarnings implements AutoCloseable {

    static final long MAX_EVENT_LOOP_MILLIS = 100;

    private static final String CHECKER_LOGGER = "io.vertx.core.impl.BlockedThreadChecker";

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(CHECKER_LOGGER);
    private final Vertx vertx;

    BlockedThreadWarnings() {
        appender.start();
        logger.addAppender(appender);
        vertx = Vertx.vertx(new VertxOptions()
                .setBlockedThreadCheckInterval(10).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
                .setMaxEventLoopExecuteTime(MAX_EVENT_LOOP_MILLIS).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
                // Log where a blocked thread stands right away, not after the default 5 s.
                .setWarningExceptionTime(MAX_EVENT_LOOP_MILLIS).setWarningExceptionTimeUnit(TimeUnit.MILLISECONDS));
    }

    Vertx vertx() {
        return vertx;
    }

    /** The warnings logged since the last call. */
    synchronized List<String> takeWarnings() {
        List<ILoggingEvent> events = List.copyOf(appender.list);
        appender.list.removeAll(events);
        return events.stream().map(BlockedThreadWarnings::describe).toList();
    }

    private static String describe(ILoggingEvent event) {
        StringBuilder text = new StringBuilder(event.getFormattedMessage());
        if (event.getThrowableProxy() != null) {
            for (var frame : event.getThrowableProxy().getStackTraceElementProxyArray()) {
                text.append("\n    at ").append(frame.getStackTraceElement());
            }
        }
        return text.toString();
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        logger.detachAppender(appender);
    }
}
