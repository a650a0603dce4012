package dev.idempotency.redis;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RedisStore#async()}: the primitives, each one script on the connection, without blocking;
 * each stage completes on a Lettuce I/O thread, or fails with what the blocking face, which waits
 * for them, throws.
 */
final class RedisAsyncStore implements AsyncStore {

    private static final Logger log = LoggerFactory.getLogger(RedisStore.class); // the store's one log category

    private final Connector connector;
    private final RecordKeys keys;
    private final Duration commandTimeout;
    private final int replicas;
    private final Duration replicaTimeout;

    RedisAsyncStore(Connector connector, RecordKeys keys, RedisStore.Builder options) {
        this.connector = connector;
        this.keys = keys;
        this.commandTimeout = options.commandTimeout;
        this.replicas = options.replicas;
        this.replicaTimeout = options.replicaTimeout;
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                       Instant now, Duration lease, Duration ttl) {
        return reserveRecord(key, fingerprint, now, lease, ttl, ownerToken).thenApply(existing -> existing
                .<AsyncReserveResult>map(AsyncReserveResult.Existing::new)
                .orElseGet(() -> AsyncReserveResult.acquired(this, key, ownerToken)));
    }

    /** Empty when {@code token} won the key; otherwise the live record in the way. */
    CompletableFuture<Optional<IdempotencyRecord>> reserveRecord(RecordKey key, String fingerprint, Instant now,
                                                                 Duration lease, Duration ttl, String token) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(token, "ownerToken");
        Instant expiresAt = now.plus(ttl);
        List<byte[]> fields = RecordMapping.inFlight(key, fingerprint, token, now.plus(lease), expiresAt);
        return call(redis -> Scripts.RESERVE.<List<Object>>run(redis, keys.redisKey(key),
                args(now, expiresAt, fields)).thenApply(reply -> ((Long) reply.get(0)) == 1L
                        ? Optional.<IdempotencyRecord>empty()
                        : Optional.of(RecordMapping.record(key, reply, 1))));
    }

    @Override
    public CompletableFuture<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        Objects.requireNonNull(key, "key");
        return call(redis -> Scripts.FIND.<List<Object>>run(redis, keys.redisKey(key),
                RecordMapping.text(RecordMapping.micros(now))).thenApply(reply -> reply.isEmpty()
                        ? Optional.<IdempotencyRecord>empty()
                        : Optional.of(RecordMapping.record(key, reply, 0))));
    }

    @Override
    public CompletableFuture<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                      Instant now, Duration ttl) {
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Instant expiresAt = now.plus(ttl);
        List<byte[]> fields = RecordMapping.completed(key, fingerprint, UUID.randomUUID().toString(), response,
                expiresAt);
        return call(redis -> Scripts.INSERT_COMPLETED.<Long>run(redis, keys.redisKey(key),
                args(now, expiresAt, fields)).thenApply(written -> written == 1L));
    }

    @Override
    public CompletableFuture<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
        List<byte[]> fields = RecordMapping.response(response);
        fields.add(0, RecordMapping.text(ownerToken));
        byte[][] args = fields.toArray(byte[][]::new);
        if (replicaTimeout == null) {
            return ownerChecked(Scripts.COMPLETE, key, args);
        }
        return call(redis -> Scripts.COMPLETE.<Long>run(redis, keys.redisKey(key), args).thenCompose(done -> done != 1L
                ? CompletableFuture.completedFuture(false)
                : ((BaseRedisAsyncCommands<String, byte[]>) redis).waitForReplication(replicas, replicaTimeout.toMillis())
                        .thenApply(acknowledged -> {
                            if (acknowledged < replicas) {
                                log.warn("Completion of key_preview={} acknowledged by {} of {} replicas within {}",
                                        key.keyPreview(), acknowledged, replicas, replicaTimeout);
                            }
                            return true;
                        })));
    }

    @Override
    public CompletableFuture<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return ownerChecked(Scripts.RELEASE, key, RecordMapping.text(ownerToken));
    }

    @Override
    public CompletableFuture<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        Instant leaseUntil = now.plus(lease);
        return ownerChecked(Scripts.RENEW, key, RecordMapping.text(ownerToken),
                RecordMapping.text(RecordMapping.micros(leaseUntil)),
                RecordMapping.text(RecordMapping.expireAtMillis(leaseUntil)));
    }

    /** As {@link RedisStore#purgeExpired}: 0, Redis expires records itself. */
    @Override
    public CompletableFuture<Integer> purgeExpired(Instant now, int limit) {
        if (limit <= 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("limit must be positive, was " + limit));
        }
        return CompletableFuture.completedFuture(0);
    }

    /** {@code true}: Redis deletes each record at its expiry. */
    @Override
    public boolean expiresRecordsItself() {
        return true;
    }

    private CompletableFuture<Boolean> ownerChecked(Scripts script, RecordKey key, byte[]... args) {
        return call(redis -> script.<Long>run(redis, keys.redisKey(key), args).thenApply(done -> done == 1L));
    }

    private static byte[][] args(Instant now, Instant expiresAt, List<byte[]> fields) {
        byte[][] args = new byte[fields.size() + 2][];
        args[0] = RecordMapping.text(RecordMapping.micros(now));
        args[1] = RecordMapping.text(RecordMapping.expireAtMillis(expiresAt));
        for (int i = 0; i < fields.size(); i++) {
            args[i + 2] = fields.get(i);
        }
        return args;
    }

    /**
     * Runs {@code operation} on the connection, within the command timeout, and completes with its
     * result or with the failure {@link RedisFailures} makes of what went wrong.
     */
    private <T> CompletableFuture<T> call(Function<RedisScriptingAsyncCommands<String, byte[]>, CompletionStage<T>> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        connector.commands().thenCompose(operation)
                .toCompletableFuture()
                .orTimeout(commandTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((value, failure) -> {
                    if (failure == null) {
                        result.complete(value);
                    } else {
                        result.completeExceptionally(RedisFailures.translate(failure, connector.isDisconnected()));
                    }
                });
        return result;
    }
}
