package dev.idempotency.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The store's connection: one given by the application (used as it is, never closed here), or one
 * the store opens from a client on first use — and opens again on the next call after a failed
 * attempt, so an application can start while Redis is down and the store serves once it is up.
 * Once open, Lettuce reconnects by itself.
 */
final class Connector {

    private final Supplier<CompletableFuture<? extends StatefulConnection<String, byte[]>>> opener;
    private final Duration commandTimeout;
    private final AtomicReference<CompletableFuture<StatefulConnection<String, byte[]>>> current = new AtomicReference<>();
    private volatile boolean closed;

    private Connector(Supplier<CompletableFuture<? extends StatefulConnection<String, byte[]>>> opener,
                      StatefulConnection<String, byte[]> given, Duration commandTimeout) {
        this.opener = opener;
        this.commandTimeout = commandTimeout;
        if (given != null) {
            current.set(CompletableFuture.completedFuture(given));
        }
    }

    /** A connection the store opens with {@code opener} and closes on {@link #close()}. */
    static Connector opening(Supplier<CompletableFuture<? extends StatefulConnection<String, byte[]>>> opener,
                             Duration commandTimeout) {
        return new Connector(opener, null, commandTimeout);
    }

    /** The application's connection. */
    static Connector given(StatefulConnection<String, byte[]> connection) {
        return new Connector(null, connection, null);
    }

    /** The commands of the open connection, opening it first when needed. */
    CompletableFuture<RedisScriptingAsyncCommands<String, byte[]>> commands() {
        return connection().thenApply(Connector::scripting);
    }

    private CompletableFuture<StatefulConnection<String, byte[]>> connection() {
        while (true) {
            CompletableFuture<StatefulConnection<String, byte[]>> existing = current.get();
            if (existing != null && !existing.isCompletedExceptionally()) {
                return existing;
            }
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("The Redis store is closed"));
            }
            CompletableFuture<StatefulConnection<String, byte[]>> attempt = new CompletableFuture<>();
            if (current.compareAndSet(existing, attempt)) {
                opener.get().whenComplete((connection, failure) -> {
                    if (failure != null) {
                        attempt.completeExceptionally(failure);
                    } else {
                        connection.setTimeout(commandTimeout);
                        attempt.complete(connection);
                    }
                });
                return attempt;
            }
        }
    }

    /** Whether the store has a connection that is currently cut (Lettuce reconnecting meanwhile). */
    boolean isDisconnected() {
        CompletableFuture<StatefulConnection<String, byte[]>> existing = current.get();
        return existing != null && existing.isDone() && !existing.isCompletedExceptionally() && !existing.join().isOpen();
    }

    private static RedisScriptingAsyncCommands<String, byte[]> scripting(StatefulConnection<String, byte[]> connection) {
        if (connection instanceof StatefulRedisClusterConnection<String, byte[]> cluster) {
            return cluster.async();
        }
        if (connection instanceof StatefulRedisConnection<String, byte[]> standalone) {
            return standalone.async();
        }
        throw new IllegalArgumentException("Not a Redis connection: " + connection.getClass().getName());
    }

    /** Closes the connection the store opened; an application's connection stays open. */
    void close() {
        closed = true;
        if (opener == null) {
            return;
        }
        CompletableFuture<StatefulConnection<String, byte[]>> last = current.getAndSet(null);
        if (last != null) {
            last.thenAccept(StatefulConnection::close);
        }
    }
}
