package dev.idempotency.redis;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.PartitionSelectorException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Tells an outage apart from every other failure, so the engine can answer 503 for it. The
 * message names only the kind of failure (an exception class or the error reply's code), never an
 * exception's text, which may carry addresses or credentials; the cause keeps the details.
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>UNREACHABLE</td><td>{@link RedisConnectionException}, {@link ConnectException},
 *       {@link NoRouteToHostException}, {@link UnknownHostException}, {@link ClosedChannelException}, any
 *       other {@link IOException} of the transport (a connection reset by a server that died mid-command),
 *       {@link PartitionSelectorException} (no cluster node for the slot), a closed or disconnected
 *       connection, and the error replies {@code CLUSTERDOWN}, {@code LOADING}, {@code READONLY},
 *       {@code MASTERDOWN}</td></tr>
 *   <tr><td>BUSY</td><td>{@link RedisCommandTimeoutException} or the store's own command timeout
 *       ({@link TimeoutException}) on a connection that is up, and the error reply {@code BUSY} (a script
 *       running too long); a timeout while the connection is cut counts as UNREACHABLE</td></tr>
 * </table>
 */
final class RedisFailures {

    private static final Set<String> UNREACHABLE_REPLIES = Set.of("CLUSTERDOWN", "LOADING", "READONLY", "MASTERDOWN");
    private static final Set<String> BUSY_REPLIES = Set.of("BUSY");

    private RedisFailures() {
    }

    /**
     * As {@link #translate(Throwable)}; a timeout while the connection is cut (commands wait for
     * Lettuce to reconnect) is an unreachable server rather than a busy one.
     */
    static RuntimeException translate(Throwable failure, boolean disconnected) {
        RuntimeException translated = translate(failure);
        if (disconnected && translated instanceof StorageUnavailableException unavailable
                && unavailable.reason() == Reason.BUSY) {
            return unavailable(Reason.UNREACHABLE, "Redis unreachable (connection lost, no answer within the command timeout)",
                    unavailable.getCause());
        }
        return translated;
    }

    /** The {@link StorageUnavailableException} {@code failure} amounts to, else {@code failure} itself, unwrapped. */
    static RuntimeException translate(Throwable failure) {
        Throwable cause = unwrap(failure);
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = cause; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            String kind = replyCode(t);
            if (UNREACHABLE_REPLIES.contains(kind)) {
                return unavailable(Reason.UNREACHABLE, "Redis cannot serve (" + kind + ")", cause);
            }
            if (BUSY_REPLIES.contains(kind)) {
                return unavailable(Reason.BUSY, "Redis busy (" + kind + ")", cause);
            }
            if (t instanceof RedisCommandTimeoutException || t instanceof TimeoutException) {
                return unavailable(Reason.BUSY, "Redis did not answer within the command timeout", cause);
            }
            if (isConnectionFailure(t)) {
                return unavailable(Reason.UNREACHABLE, "Redis unreachable (" + t.getClass().getSimpleName() + ")", cause);
            }
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new RedisException("Redis idempotency store call failed", cause);
    }

    private static boolean isConnectionFailure(Throwable t) {
        // IOException: the transport's own failures, e.g. a connection reset by a server that died
        // mid-command (SocketException, Netty's native IOException), besides the ones named.
        if (t instanceof RedisConnectionException || t instanceof ConnectException || t instanceof NoRouteToHostException
                || t instanceof UnknownHostException || t instanceof ClosedChannelException || t instanceof IOException
                || t instanceof PartitionSelectorException) {
            return true;
        }
        // Lettuce's own words for a connection that went away under pending or new commands.
        String message = t instanceof RedisException ? String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT) : "";
        return message.startsWith("connection closed") || message.startsWith("connection is closed")
                || message.startsWith("connection disconnected");
    }

    /** The first word of an error reply ({@code CLUSTERDOWN}, {@code LOADING}, …), or "". */
    private static String replyCode(Throwable t) {
        if (!(t instanceof RedisCommandExecutionException) || t.getMessage() == null) {
            return "";
        }
        String message = t.getMessage().strip();
        int space = message.indexOf(' ');
        return space < 0 ? message : message.substring(0, space);
    }

    private static StorageUnavailableException unavailable(Reason reason, String message, Throwable cause) {
        return new StorageUnavailableException(reason, message, cause);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
