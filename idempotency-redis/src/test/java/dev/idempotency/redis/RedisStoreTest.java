package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the contract does not pin down: the key and hash layout, expiry by Redis, bytes, scripts. */
class RedisStoreTest {

    private static final Instant NOW = Instant.parse("2030-06-01T12:00:00.123456Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(24);
    private static final String FP = "f".repeat(64);

    private static TestRedis redis;

    @BeforeAll
    static void connect() {
        redis = TestRedis.standalone("store");
    }

    @AfterAll
    static void deleteKeys() {
        redis.close();
    }

    private static RecordKey newKey() {
        return new RecordKey("tenant-" + UUID.randomUUID(), "POST", "/orders", "key-" + UUID.randomUUID());
    }

    private static byte[] everyByteValue() {
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        return body;
    }

    private static Reservation acquire(RecordKey key) {
        return ((ReserveResult.Acquired) redis.first.reserve(key, FP, NOW, LEASE, TTL)).reservation();
    }

    @Test
    void aBodyWithEveryByteValueRoundTripsByteExactThroughBothFaces() {
        byte[] body = everyByteValue();
        RecordKey completed = newKey();
        assertThat(acquire(completed).complete(new StoredResponse(200, "application/octet-stream", Map.of(), body)))
                .isTrue();
        RecordKey inserted = newKey();
        assertThat(redis.second.async().insertCompleted(inserted, FP,
                new StoredResponse(201, null, Map.of(), body), NOW, TTL).toCompletableFuture().join()).isTrue();

        assertThat(redis.second.find(completed, NOW).orElseThrow().response().body()).containsExactly(body);
        assertThat(redis.first.async().find(inserted, NOW).toCompletableFuture().join().orElseThrow()
                .response().body()).containsExactly(body);
    }

    @Test
    void aRecordIsOneHashUnderTheHashTaggedDigestWithItsPartsAndFormatVersion() {
        RecordKey key = new RecordKey("tenant-\u00e4", "PUT", "/a/b", "k-" + UUID.randomUUID());
        acquire(key);

        String redisKey = redis.first.redisKey(key);
        assertThat(redisKey).matches(java.util.regex.Pattern.quote(redis.prefix) + "\\{[0-9a-f]{64}}");
        assertThat(redis.keys()).filteredOn(k -> k.equals(redisKey)).hasSize(1);
        Map<String, String> hash = redis.admin().hgetall(redisKey);
        assertThat(hash).containsEntry("v", Integer.toString(HeaderCodec.FORMAT_VERSION))
                .containsEntry("t", "tenant-\u00e4").containsEntry("m", "PUT").containsEntry("p", "/a/b")
                .containsEntry("k", key.key()).containsEntry("st", "I").containsEntry("fp", FP)
                .doesNotContainKey("c");
        assertThat(redis.admin().type(redisKey)).isEqualTo("hash");
    }

    @Test
    void aCallersRecordIsTheAnonymousKeyWithTheCallerAfterTheHashTagInTheSameSlot() {
        RecordKey anonymous = newKey();
        RecordKey alice = withCaller(anonymous, RecordKey.callerOf("alice"));
        RecordKey bob = withCaller(anonymous, RecordKey.callerOf("bob"));
        acquire(alice);

        String anonymousKey = redis.first.redisKey(anonymous);
        String aliceKey = redis.first.redisKey(alice);
        assertThat(aliceKey).isEqualTo(anonymousKey + ":" + alice.caller());
        assertThat(redis.first.redisKey(bob)).isEqualTo(anonymousKey + ":" + bob.caller());
        assertThat(SlotHash.getSlot(aliceKey)).isEqualTo(SlotHash.getSlot(anonymousKey))
                .isEqualTo(SlotHash.getSlot(redis.first.redisKey(bob)));
        assertThat(redis.keys()).filteredOn(k -> k.startsWith(anonymousKey)).containsExactly(aliceKey);
        assertThat(redis.admin().hgetall(aliceKey)).containsEntry("c", alice.caller()).containsEntry("k", alice.key());
    }

    @Test
    void aRecordWrittenBeforeCallersWereStoredIsAnonymous() {
        RecordKey anonymous = newKey();
        // As the store wrote it before the caller was part of the key: no 'c', the same Redis key.
        Map<String, String> fields = new java.util.HashMap<>(Map.of("v", "1", "t", anonymous.tenant(),
                "m", anonymous.method(), "p", anonymous.path(), "k", anonymous.key(), "fp", FP, "st", "C",
                "own", "x", "exp", "99999999999999999"));
        fields.putAll(Map.of("status", "201", "hdr", HeaderCodec.encode(Map.of()), "body", "old"));
        redis.admin().hset(redis.first.redisKey(anonymous), fields);

        IdempotencyRecord found = redis.second.find(anonymous, NOW).orElseThrow();
        assertThat(found.key()).isEqualTo(anonymous);
        assertThat(found.response().status()).isEqualTo(201);
        assertThat(redis.second.find(withCaller(anonymous, RecordKey.callerOf("alice")), NOW)).isEmpty();
        assertThat(redis.second.reserve(withCaller(anonymous, RecordKey.callerOf("alice")), FP, NOW, LEASE, TTL))
                .isInstanceOf(ReserveResult.Acquired.class);
    }

    @Test
    void aHashUnderACallersKeyThatHoldsAnotherCallerIsNotTakenForTheRecord() {
        RecordKey alice = withCaller(newKey(), RecordKey.callerOf("alice"));
        String redisKey = redis.first.redisKey(alice);
        Map<String, String> fields = new java.util.HashMap<>(Map.of("v", "1", "t", alice.tenant(), "m", alice.method(),
                "p", alice.path(), "k", alice.key(), "fp", FP, "st", "I", "own", "x", "lease", "99999999999999999",
                "exp", "99999999999999999"));
        redis.admin().hset(redisKey, fields);
        assertThatThrownBy(() -> redis.first.find(alice, NOW)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds another key");

        redis.admin().hset(redisKey, Map.of("c", RecordKey.callerOf("bob")));
        assertThatThrownBy(() -> redis.first.find(alice, NOW)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds another key");

        redis.admin().hset(redisKey, Map.of("c", alice.caller()));
        assertThat(redis.first.find(alice, NOW)).isPresent();
    }

    private static RecordKey withCaller(RecordKey key, String caller) {
        return new RecordKey(key.tenant(), caller, key.method(), key.path(), key.key());
    }

    @Test
    void theKeyExpiresWithTheRecordAndTheCompletionLeavesItAlone() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key);
        String redisKey = redis.first.redisKey(key);
        long reservedExpiry = NOW.plus(TTL).toEpochMilli() + 1; // .123456 rounds up to the next millisecond
        assertThat(redis.admin().pexpiretime(redisKey)).isEqualTo(reservedExpiry);

        assertThat(reservation.complete(new StoredResponse(200, null, Map.of(), new byte[] {1}))).isTrue();
        assertThat(redis.admin().pexpiretime(redisKey)).isEqualTo(reservedExpiry);

        RecordKey inserted = newKey();
        Instant later = NOW.plusSeconds(60);
        redis.first.insertCompleted(inserted, FP, new StoredResponse(200, null, Map.of(), new byte[0]), later, TTL);
        assertThat(redis.admin().pexpiretime(redis.first.redisKey(inserted))).isEqualTo(later.plus(TTL).toEpochMilli() + 1);
    }

    @Test
    void aRenewalPastTheTtlPushesTheKeysExpiryToTheLeasesEnd() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key);
        String redisKey = redis.first.redisKey(key);
        long reservedExpiry = NOW.plus(TTL).toEpochMilli() + 1;

        assertThat(reservation.renew(NOW.plusSeconds(60), LEASE)).isTrue();
        assertThat(redis.admin().pexpiretime(redisKey)).as("within the ttl: unchanged").isEqualTo(reservedExpiry);

        Instant pastTtl = NOW.plus(TTL).plusSeconds(5);
        assertThat(reservation.renew(pastTtl, LEASE)).isTrue();
        assertThat(redis.admin().pexpiretime(redisKey)).isEqualTo(pastTtl.plus(LEASE).toEpochMilli() + 1);
        assertThat(redis.first.find(key, pastTtl).orElseThrow().expiresAt()).isEqualTo(pastTtl.plus(LEASE));
    }

    @Test
    void instantsKeepTheirMicroseconds() {
        RecordKey key = newKey();
        acquire(key);

        IdempotencyRecord record = redis.first.find(key, NOW).orElseThrow();
        assertThat(record.leaseUntil()).isEqualTo(NOW.plus(LEASE));
        assertThat(record.expiresAt()).isEqualTo(NOW.plus(TTL));
    }

    @Test
    void redisDeletesAnExpiredRecordItselfSoPurgeHasNothingToDo() {
        RecordKey key = newKey();
        Instant now = Instant.now();
        assertThat(redis.first.insertCompleted(key, FP, new StoredResponse(200, null, Map.of(), new byte[] {1}), now,
                Duration.ofMillis(300))).isTrue();
        String redisKey = redis.first.redisKey(key);
        assertThat(redis.admin().exists(redisKey)).isEqualTo(1);

        await().atMost(Duration.ofSeconds(5)).until(() -> redis.admin().exists(redisKey) == 0);
        assertThat(redis.first.purgeExpired(Instant.now(), 100)).isZero();
        assertThat(redis.first.async().purgeExpired(Instant.now(), 100).toCompletableFuture().join()).isZero();
        assertThatThrownBy(() -> redis.first.purgeExpired(Instant.now(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(redis.first.expiresRecordsItself()).isTrue();
        assertThat(redis.first.async().expiresRecordsItself()).isTrue();
    }

    @Test
    void aFlushedScriptCacheIsLoadedAgain() {
        RecordKey key = newKey();
        redis.admin().scriptFlush();
        assertThat(redis.admin().scriptExists(Scripts.RESERVE.sha1())).containsExactly(false);

        Reservation reservation = acquire(key);

        assertThat(redis.admin().scriptExists(Scripts.RESERVE.sha1())).containsExactly(true);
        redis.admin().scriptFlush();
        assertThat(redis.first.async().find(key, NOW).toCompletableFuture().join()).isPresent();
        redis.admin().scriptFlush();
        assertThat(reservation.complete(new StoredResponse(200, null, Map.of(), new byte[] {7}))).isTrue();
        assertThat(redis.second.find(key, NOW).orElseThrow().response().body()).containsExactly(7);
    }

    @Test
    void aHashUnderTheKeyThatHoldsAnotherTupleIsNotTakenForTheRecord() {
        RecordKey key = newKey();
        String redisKey = redis.first.redisKey(key);
        redis.admin().hset(redisKey, Map.of("v", "1", "t", "someone-else", "m", key.method(), "p", key.path(),
                "k", key.key(), "fp", FP, "st", "I", "own", "x", "lease", "99999999999999999", "exp", "99999999999999999"));

        assertThatThrownBy(() -> redis.first.find(key, NOW)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds another key");
    }

    @Test
    void aKeyPrefixWithBracesIsRefused() {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
        try {
            assertThatThrownBy(() -> RedisStore.builder(client, TestRedis.standaloneUri()).keyPrefix("idem:{x}:").build())
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void headersAndContentTypeRoundTrip() {
        RecordKey key = newKey();
        StoredResponse response = new StoredResponse(201, "application/json; charset=utf-8",
                Map.of("Location", List.of("/orders/\u00e4")), "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        acquire(key).complete(response);

        assertThat(redis.second.find(key, NOW).orElseThrow().response()).isEqualTo(response);
    }
}
