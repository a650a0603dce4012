package dev.idempotency.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The store's primitives, each one Lua script on the record's key, run by {@code EVALSHA}; a
 * server that answers {@code NOSCRIPT} (restarted, failed over, {@code SCRIPT FLUSH}ed) gets the
 * call once more as {@code EVAL} with the script's source, on the key's node, which caches it there.
 *
 * <p>A record is a hash: {@code v} format version, {@code t m p k} the key's parts and {@code c}
 * its caller (absent for an anonymous record), {@code fp} fingerprint, {@code st} {@code I} (in
 * flight) or {@code C} (completed), {@code own} owner token, {@code lease} and {@code exp} in
 * epoch microseconds, and for a completed record {@code status},
 * {@code ct} (absent when there is no content type), {@code hdr} and {@code body}. Times are the
 * engine's {@code now}, passed in; the key's own expiry ({@code PEXPIREAT exp}) only lets Redis
 * drop it, every script compares {@code exp} itself.
 */
enum Scripts {

    /**
     * ARGV: now, expiry for PEXPIREAT (ms), then the new record's field/value pairs. Writes the
     * record unless a live one is there: {@code {1}} when it did, else {@code {0, <HGETALL>}}.
     */
    RESERVE(ScriptOutputType.MULTI, Lua.LIVE + """
            if live(KEYS[1], tonumber(ARGV[1])) then
              local record = redis.call('HGETALL', KEYS[1])
              table.insert(record, 1, 0)
              return record
            end
            redis.call('DEL', KEYS[1])
            redis.call('HSET', KEYS[1], unpack(ARGV, 3))
            redis.call('PEXPIREAT', KEYS[1], ARGV[2])
            return {1}
            """),

    /** ARGV: as {@link #RESERVE}, for a completed record. 1 when written, 0 when a live record is there. */
    INSERT_COMPLETED(ScriptOutputType.INTEGER, Lua.LIVE + """
            if live(KEYS[1], tonumber(ARGV[1])) then
              return 0
            end
            redis.call('DEL', KEYS[1])
            redis.call('HSET', KEYS[1], unpack(ARGV, 3))
            redis.call('PEXPIREAT', KEYS[1], ARGV[2])
            return 1
            """),

    /**
     * ARGV: now. The record unless absent or expired (an in-flight one with a lapsed lease
     * included; one whose lease runs has not expired).
     */
    FIND(ScriptOutputType.MULTI, Lua.LIVE + """
            local exp = redis.call('HGET', KEYS[1], 'exp')
            if not exp or (tonumber(exp) <= tonumber(ARGV[1]) and not live(KEYS[1], tonumber(ARGV[1]))) then
              return {}
            end
            return redis.call('HGETALL', KEYS[1])
            """),

    /** ARGV: owner token, then the response's field/value pairs. The expiry stays as reserved. */
    COMPLETE(ScriptOutputType.INTEGER, Lua.OWNED + """
            if not owned(KEYS[1], ARGV[1]) then
              return 0
            end
            redis.call('HDEL', KEYS[1], 'lease')
            redis.call('HSET', KEYS[1], 'st', 'C', unpack(ARGV, 2))
            return 1
            """),

    /** ARGV: owner token. */
    RELEASE(ScriptOutputType.INTEGER, Lua.OWNED + """
            if not owned(KEYS[1], ARGV[1]) then
              return 0
            end
            redis.call('DEL', KEYS[1])
            return 1
            """),

    /**
     * ARGV: owner token, new lease end, the same for PEXPIREAT (ms). The expiry follows the lease
     * when that ends later, the key's own included, so Redis never drops a renewed reservation.
     */
    RENEW(ScriptOutputType.INTEGER, Lua.OWNED + """
            if not owned(KEYS[1], ARGV[1]) then
              return 0
            end
            redis.call('HSET', KEYS[1], 'lease', ARGV[2])
            if tonumber(redis.call('HGET', KEYS[1], 'exp')) < tonumber(ARGV[2]) then
              redis.call('HSET', KEYS[1], 'exp', ARGV[2])
              redis.call('PEXPIREAT', KEYS[1], ARGV[3])
            end
            return 1
            """);

    private final ScriptOutputType output;
    private final byte[] source;
    private final String sha1;

    Scripts(ScriptOutputType output, String source) {
        this.output = output;
        this.source = source.getBytes(StandardCharsets.UTF_8);
        this.sha1 = sha1(this.source);
    }

    /** Runs this script on {@code key}: EVALSHA, and on NOSCRIPT once more as EVAL with its source. */
    <T> CompletionStage<T> run(RedisScriptingAsyncCommands<String, byte[]> redis, String key, byte[]... args) {
        String[] keys = {key};
        CompletionStage<T> first = redis.evalsha(sha1, output, keys, args);
        return first.exceptionallyCompose(failure -> {
            if (!(unwrap(failure) instanceof RedisNoScriptException)) {
                return CompletableFuture.failedFuture(failure);
            }
            // EVAL with the source, on the key's node only, which also caches it there for the next
            // EVALSHA. (A SCRIPT LOAD goes to every master a cluster client knows, and fails while a
            // failed-over master is still in the topology.)
            return redis.<T>eval(source, output, keys, args);
        });
    }

    String sha1() {
        return sha1;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String sha1(byte[] source) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-1", e);
        }
    }

    /** Functions the scripts share. */
    private static final class Lua {
        /**
         * Whether a record is there that a new reservation must not replace: completed and not
         * expired, or in flight under a lease that still runs (whatever its expiry).
         */
        static final String LIVE = """
                local function live(key, now)
                  local cur = redis.call('HMGET', key, 'st', 'lease', 'exp')
                  if not cur[1] then
                    return false
                  end
                  if cur[1] == 'I' then
                    return tonumber(cur[2]) > now
                  end
                  return tonumber(cur[3]) > now
                end
                """;
        /** Whether the record is in flight under this owner token. */
        static final String OWNED = """
                local function owned(key, token)
                  local cur = redis.call('HMGET', key, 'own', 'st')
                  return cur[1] == token and cur[2] == 'I'
                end
                """;
    }
}
