package dev.idempotency.redis;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * A store in Redis — standalone, or a Redis Cluster — through Lettuce. This object is the
 * blocking {@link Store}; {@link #async()} is the non-blocking {@link AsyncStore} over the same
 * connection, for event-loop frameworks (Vert.x). Both faces share the connection and scripts.
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create();
 * RedisStore store = RedisStore.builder(client, RedisURI.create("redis://localhost:6379"))
 *         .keyPrefix("idem:")
 *         .commandTimeout(Duration.ofSeconds(2))
 *         .build();
 * IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.defaults());   // blocking
 * IdempotencyEngine engine = new IdempotencyEngine(store.async(), IdempotencyConfig.defaults()); // non-blocking
 * }</pre>
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li>A record is one hash under {@code <keyPrefix>{<hex SHA-256 of tenant, method, path, key>}}:
 *       the braces make it one cluster slot. The hash also holds the four parts, checked on every
 *       read, and a format version.</li>
 *   <li>Each primitive — reserve, find, insertCompleted, complete, release, renew — is one Lua
 *       script run by {@code EVALSHA} (run once more as {@code EVAL} with its source on {@code NOSCRIPT}), so it is
 *       atomic on the record's key. Complete, release and renew act only while the reservation's
 *       random owner token is in the record and it is still in flight.</li>
 *   <li>Time is the {@code now} the engine passes; Redis's clock plays no part in any decision.
 *       A record expires at its reservation's {@code now + ttl} (an optimistic insert's
 *       {@code now + ttl}), or at its renewed lease's end when that is later; completing leaves
 *       that alone. The key carries the same instant as
 *       {@code PEXPIREAT}, so Redis deletes it itself: {@link #purgeExpired} has nothing to do.</li>
 *   <li>Bodies are stored byte for byte (values go through a byte-array codec, {@link #CODEC}).</li>
 *   <li>An unreachable server (refused or lost connection, {@code CLUSTERDOWN}, {@code LOADING},
 *       {@code READONLY}, {@code MASTERDOWN}) and a call that takes longer than
 *       {@link Builder#commandTimeout} are reported as {@link StorageUnavailableException}.</li>
 *   <li>No atomic mode: a handler's own writes live in another database, and Redis has no
 *       transaction spanning both.</li>
 *   <li>Durability is Redis's: replication is asynchronous, so an acknowledged reservation or
 *       completion can be lost when a master fails over before its replica has it.</li>
 * </ul>
 * Thread-safe. One multiplexed connection serves every call; {@link #close()} closes it when the
 * store opened it.
 */
public final class RedisStore implements Store, AutoCloseable {

    /** The codec of the store's connections: keys as UTF-8 strings, values as raw bytes. */
    public static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    /** The default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "idempotency:";
    /** The default bound on each call. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private final Connector connector;
    private final RecordKeys keys;
    private final RedisAsyncStore async;

    private RedisStore(Builder b, Connector connector) {
        this.connector = connector;
        this.keys = new RecordKeys(b.keyPrefix);
        this.async = new RedisAsyncStore(connector, keys, b);
    }

    /**
     * A store that connects to a standalone Redis at {@code uri} through {@code client}, on first
     * use. The client (its threads) stays the application's.
     */
    public static Builder builder(RedisClient client, RedisURI uri) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(uri, "uri");
        return new Builder(false, timeout -> Connector.opening(() -> client.connectAsync(CODEC, uri).toCompletableFuture(),
                timeout));
    }

    /** A store that connects to the Redis Cluster of {@code client}'s seed URIs, on first use. */
    public static Builder builder(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        // connectAsync needs the topology loaded; loading it first keeps the first connect non-blocking too.
        return new Builder(true, timeout -> Connector.opening(() -> client.refreshPartitionsAsync().toCompletableFuture()
                .thenCompose(loaded -> client.connectAsync(CODEC)), timeout));
    }

    /**
     * A store on the application's connection, opened with {@link #CODEC}. Its own timeout
     * stays as set; the store still bounds each call by {@link Builder#commandTimeout}.
     */
    public static Builder builder(StatefulRedisConnection<String, byte[]> connection) {
        Objects.requireNonNull(connection, "connection");
        return new Builder(false, timeout -> Connector.given(connection));
    }

    /** A store on the application's cluster connection, opened with {@link #CODEC}. */
    public static Builder builder(StatefulRedisClusterConnection<String, byte[]> connection) {
        Objects.requireNonNull(connection, "connection");
        return new Builder(true, timeout -> Connector.given(connection));
    }

    /** The non-blocking face of this store, over the same connection. */
    public AsyncStore async() {
        return async;
    }

    /** The prefix of every key this store writes. */
    public String keyPrefix() {
        return keys.prefix();
    }

    /** The Redis key of {@code key}'s record (for operations and tests). */
    public String redisKey(RecordKey key) {
        return keys.redisKey(key);
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                 Duration ttl) {
        Optional<IdempotencyRecord> existing = await(async.reserveRecord(key, fingerprint, now, lease, ttl, ownerToken));
        return existing.<ReserveResult>map(ReserveResult.Existing::new)
                .orElseGet(() -> ReserveResult.acquired(this, key, ownerToken));
    }

    /** The release script: deletes the record only while it is in flight under {@code ownerToken}. */
    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        return await(release(key, ownerToken));
    }

    CompletableFuture<Boolean> release(RecordKey key, String ownerToken) {
        return async.releaseIfOwned(key, ownerToken);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        return await(async.complete(key, ownerToken, response));
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        return await(async.renew(key, ownerToken, now, lease));
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        return await(async.find(key, now));
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        return await(async.insertCompleted(key, fingerprint, response, now, ttl));
    }

    /**
     * Returns 0: Redis deletes each record itself at its expiry ({@code PEXPIREAT}), so there is
     * no batch to purge and no {@link dev.idempotency.core.store.PurgeScheduler} to run. (A record
     * past its expiry by the engine's clock but not yet by Redis's counts as absent meanwhile.)
     */
    @Override
    public int purgeExpired(Instant now, int limit) {
        return await(async.purgeExpired(now, limit));
    }

    /** {@code true}: Redis deletes each record at its expiry. */
    @Override
    public boolean expiresRecordsItself() {
        return true;
    }

    /** Closes the connection the store opened; one given to the builder stays open. */
    @Override
    public void close() {
        connector.close();
    }

    /** The blocking face: waits (the stage is bounded by the command timeout) and throws what it failed with. */
    private static <T> T await(CompletableFuture<T> stage) {
        try {
            return stage.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /**
     * Options of a {@link RedisStore}.
     *
     * <table>
     *   <caption>Options</caption>
     *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
     *   <tr><td>{@code keyPrefix}</td><td>{@code idempotency:}</td><td>the start of every key (no braces)</td></tr>
     *   <tr><td>{@code commandTimeout}</td><td>2 s</td><td>the longest a call may take, connecting
     *       included, before it fails with {@link StorageUnavailableException}</td></tr>
     *   <tr><td>{@code durability}</td><td>off</td><td>standalone only: {@code WAIT} for replicas after
     *       each completion</td></tr>
     * </table>
     */
    public static final class Builder {
        private final boolean cluster;
        private final Function<Duration, Connector> connector;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        // Read by RedisAsyncStore when the store is built.
        Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        int replicas;
        Duration replicaTimeout;

        private Builder(boolean cluster, Function<Duration, Connector> connector) {
            this.cluster = cluster;
            this.connector = connector;
        }

        /** The start of every key the store writes, e.g. {@code idem:} or {@code app1:idem:}. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * The longest a call may take — connecting, the script, a NOSCRIPT retry — before it fails
         * with {@link StorageUnavailableException}. Also the Lettuce timeout of a connection the
         * store opens.
         */
        public Builder commandTimeout(Duration commandTimeout) {
            Objects.requireNonNull(commandTimeout, "commandTimeout");
            if (commandTimeout.isNegative() || commandTimeout.isZero()) {
                throw new IllegalArgumentException("commandTimeout must be positive, was " + commandTimeout);
            }
            this.commandTimeout = commandTimeout;
            return this;
        }

        /**
         * Opt-in, standalone Redis only: after a completion is written, {@code WAIT replicas timeout}
         * on the same connection, so the completion returns once that many replicas have it — or
         * the timeout has passed, which is logged as a warning and still counts as completed (the
         * response is on the master; only a failover before its replicas catch up loses it). The
         * reservation itself is not waited for. Narrows the window of a lost completion; does not
         * make Redis synchronous (a failover may still promote a replica that missed it).
         *
         * @param replicas how many replicas must acknowledge, at least 1
         * @param timeout  how long to wait for them, shorter than the command timeout
         * @throws IllegalArgumentException from {@link #build()} on a cluster, or when the timeout
         *                                  is not shorter than the command timeout
         */
        public Builder durability(int replicas, Duration timeout) {
            if (replicas < 1) {
                throw new IllegalArgumentException("replicas must be at least 1, was " + replicas);
            }
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
            this.replicas = replicas;
            this.replicaTimeout = timeout;
            return this;
        }

        /** Builds the store; it connects on first use, so Redis need not be up yet. */
        public RedisStore build() {
            new RecordKeys(keyPrefix); // validates the prefix
            if (replicaTimeout != null) {
                if (cluster) {
                    // WAIT counts the writes of the connection it is sent on, and on a cluster that is the key's node's.
                    throw new IllegalArgumentException("durability(replicas, timeout) is for a standalone Redis, not a cluster");
                }
                if (replicaTimeout.compareTo(commandTimeout) >= 0) {
                    throw new IllegalArgumentException("The durability timeout " + replicaTimeout
                            + " must be shorter than the command timeout " + commandTimeout);
                }
            }
            return new RedisStore(this, connector.apply(commandTimeout));
        }
    }
}
