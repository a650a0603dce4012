package dev.idempotency.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Store} must have. Subclass it once per store and database:
 *
 * <pre>{@code
 * class MyStoreContractTest extends StoreContractTest {
 *     protected Store createStore() { return new MyStore(dataSource); }
 *     protected Store secondInstance() { return new MyStore(otherPoolOnSameDatabase); }
 * }
 * }</pre>
 *
 * Time is passed explicitly (the engine's clock), so nothing here sleeps. Each test uses fresh
 * random keys, so a store may keep its data between tests.
 */
public abstract class StoreContractTest {

    /** A fixed "now" with millisecond precision, well inside every database's timestamp range. */
    protected static final Instant T0 = Instant.parse("2030-01-01T00:00:00.000Z");
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration TTL = Duration.ofHours(24);

    private static final String FP = "a".repeat(64);
    private static final String OTHER_FP = "b".repeat(64);

    protected Store store;

    /** A store over fresh or shared storage; called before each test. */
    protected abstract Store createStore();

    /**
     * A second store instance over the same storage, as a second application server would have
     * (for SQL stores: its own connection pool). Defaults to the first instance.
     */
    protected Store secondInstance() {
        return store;
    }

    /** Releases what {@link #createStore()} opened. */
    protected void closeStore(Store store) {
    }

    @BeforeEach
    void openStore() {
        store = createStore();
    }

    @AfterEach
    void shutStore() {
        closeStore(store);
    }

    protected static RecordKey newKey() {
        return new RecordKey("tenant-" + UUID.randomUUID(), "POST", "/orders", "key-" + UUID.randomUUID());
    }

    protected static StoredResponse response(int status, byte[] body) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Location", List.of("/orders/42"));
        headers.put("Link", List.of("</a>; rel=\"a\"", "</b>; rel=\"b\""));
        return new StoredResponse(status, "application/json", headers, body);
    }

    protected Reservation acquire(RecordKey key, Instant now) {
        return reserveOrFail(store.reserve(key, FP, now, LEASE, TTL));
    }

    private static IdempotencyRecord existing(ReserveResult result) {
        assertThat(result).as("reserve on a taken key").isInstanceOf(ReserveResult.Existing.class);
        return ((ReserveResult.Existing) result).record();
    }

    @Test
    void reserveOnAbsentKeyWinsAndRecordsAnInFlightRecord() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);

        assertThat(reservation.key()).isEqualTo(key);
        assertThat(reservation.ownerToken()).isNotBlank();
        IdempotencyRecord record = store.find(key, T0).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(record.fingerprint()).isEqualTo(FP);
        assertThat(record.response()).isNull();
        assertThat(record.leaseUntil()).isEqualTo(T0.plus(LEASE));
    }

    @Test
    void secondReserveLosesAndSeesTheInFlightRecord() {
        RecordKey key = newKey();
        acquire(key, T0);

        IdempotencyRecord record = existing(store.reserve(key, OTHER_FP, T0.plusSeconds(1), LEASE, TTL));

        assertThat(record.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(record.fingerprint()).as("the winner's fingerprint").isEqualTo(FP);
        assertThat(record.key()).isEqualTo(key);
    }

    @Test
    void completedRecordComesBackByteExact() {
        RecordKey key = newKey();
        byte[] body = new byte[256 + 3];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i; // every byte value, invalid UTF-8 included
        }
        StoredResponse stored = response(201, body);

        assertThat(acquire(key, T0).complete(stored)).isTrue();

        IdempotencyRecord record = store.find(key, T0.plusSeconds(2)).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.fingerprint()).isEqualTo(FP);
        assertThat(record.response()).isEqualTo(stored);
        assertThat(record.response().body()).containsExactly(body);
        assertThat(List.copyOf(record.response().headers().keySet())).containsExactly("Location", "Link");
        assertThat(record.expiresAt()).as("counted from the reservation").isEqualTo(T0.plus(TTL));

        IdempotencyRecord seenByReserve = existing(store.reserve(key, FP, T0.plusSeconds(3), LEASE, TTL));
        assertThat(seenByReserve.response()).isEqualTo(stored);
    }

    @Test
    void responseWithoutContentTypeOrHeadersAndEmptyBodyRoundTrips() {
        RecordKey key = newKey();
        StoredResponse stored = new StoredResponse(204, null, Map.of(), new byte[0]);

        acquire(key, T0).complete(stored);

        assertThat(store.find(key, T0).orElseThrow().response()).isEqualTo(stored);
    }

    @Test
    void aResponseStoredWithoutItsBodyComesBackAsSuch() {
        RecordKey completed = newKey();
        RecordKey inserted = newKey();
        StoredResponse stored = StoredResponse.withoutBody(201, "text/event-stream", response(201, new byte[0]).headers());

        assertThat(acquire(completed, T0).complete(stored)).isTrue();
        assertThat(store.insertCompleted(inserted, FP, stored, T0, TTL)).isTrue();

        for (RecordKey key : List.of(completed, inserted)) {
            StoredResponse found = store.find(key, T0.plusSeconds(1)).orElseThrow().response();
            assertThat(found).isEqualTo(stored);
            assertThat(found.bodyStored()).isFalse();
            assertThat(found.headers().get("Location")).containsExactly("/orders/42");
        }
    }

    /** Every store holds a body of the engine's default {@code maxStoredBodyBytes}. */
    @Test
    void largeBodyRoundTrips() {
        RecordKey key = newKey();
        byte[] body = new byte[IdempotencyConfig.defaults().maxStoredBodyBytes()];
        new java.util.Random(7).nextBytes(body);

        acquire(key, T0).complete(response(200, body));

        assertThat(store.find(key, T0).orElseThrow().response().body()).isEqualTo(body);
    }

    @Test
    void releaseFreesTheKey() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);

        assertThat(reservation.release()).isTrue();

        assertThat(store.find(key, T0)).isEmpty();
        acquire(key, T0.plusMillis(1));
    }

    @Test
    void abortFreesTheKey() {
        RecordKey key = newKey();
        acquire(key, T0).abort();

        assertThat(store.find(key, T0)).isEmpty();
        acquire(key, T0.plusMillis(1));
    }

    @Test
    void aReservationCarriesTheOwnerTokenTheCallerChose() {
        RecordKey key = newKey();
        String token = UUID.randomUUID().toString();

        ReserveResult result = store.reserve(key, FP, token, T0, LEASE, TTL);

        assertThat(result).isInstanceOf(ReserveResult.Acquired.class);
        assertThat(((ReserveResult.Acquired) result).reservation().ownerToken()).isEqualTo(token);
    }

    /** A reservation whose answer was lost: its caller knows only the token it chose, and frees the key by it. */
    @Test
    void releaseIfOwnedDeletesTheOwnersInFlightRecord() {
        RecordKey key = newKey();
        String token = UUID.randomUUID().toString();
        store.reserve(key, FP, token, T0, LEASE, TTL);

        assertThat(secondInstance().releaseIfOwned(key, token)).isTrue();

        assertThat(store.find(key, T0)).isEmpty();
        assertThat(store.releaseIfOwned(key, token)).as("a second time: nothing left").isFalse();
        acquire(key, T0.plusMillis(1));
    }

    @Test
    void releaseIfOwnedLeavesAnotherOwnersInFlightRecord() {
        RecordKey key = newKey();
        Reservation other = acquire(key, T0);

        assertThat(store.releaseIfOwned(key, UUID.randomUUID().toString())).isFalse();

        assertThat(store.find(key, T0).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(other.complete(response(201, new byte[] {1}))).as("the owner still holds it").isTrue();
    }

    @Test
    void releaseIfOwnedLeavesACompletedRecord() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);
        assertThat(reservation.complete(response(201, new byte[] {1}))).isTrue();

        assertThat(store.releaseIfOwned(key, reservation.ownerToken())).isFalse();

        assertThat(store.find(key, T0).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void releaseIfOwnedLeavesTheRecordOfWhoeverTookOverALapsedLease() {
        RecordKey key = newKey();
        Reservation lapsed = acquire(key, T0);
        Instant afterLease = T0.plus(LEASE).plusMillis(1);
        Reservation taker = acquire(key, afterLease);

        assertThat(store.releaseIfOwned(key, lapsed.ownerToken())).isFalse();

        assertThat(taker.complete(response(201, new byte[] {2}))).isTrue();
        assertThat(store.find(key, afterLease).orElseThrow().response().body()).containsExactly(2);
    }

    @Test
    void releaseIfOwnedOfAnAbsentKeyDoesNothing() {
        assertThat(store.releaseIfOwned(newKey(), UUID.randomUUID().toString())).isFalse();
    }

    @Test
    void aHandleFinishesOnlyOnce() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);
        reservation.complete(response(200, new byte[] {1}));

        assertThatThrownBy(() -> reservation.complete(response(200, new byte[] {2})))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(reservation::release).isInstanceOf(IllegalStateException.class);
        assertThat(reservation.renew(T0, LEASE)).as("renew after finish").isFalse();
        assertThat(store.find(key, T0).orElseThrow().response().body()).containsExactly(1);
    }

    @Test
    void expiredCompletedRecordCountsAsAbsentAndCanBeReservedAgain() {
        RecordKey key = newKey();
        acquire(key, T0).complete(response(200, new byte[] {1}));
        Instant afterExpiry = T0.plus(TTL).plusMillis(1);

        assertThat(store.find(key, T0.plus(TTL).minusMillis(1))).isPresent();
        assertThat(store.find(key, afterExpiry)).isEmpty();

        ReserveResult result = store.reserve(key, OTHER_FP, afterExpiry, LEASE, TTL);
        assertThat(result).isInstanceOf(ReserveResult.Acquired.class);
        assertThat(store.find(key, afterExpiry).orElseThrow().fingerprint()).isEqualTo(OTHER_FP);
    }

    @Test
    void theTtlCountsFromTheReservationNotFromTheCompletion() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);
        Instant reservedExpiry = T0.plus(TTL);
        assertThat(store.find(key, T0).orElseThrow().expiresAt()).isEqualTo(reservedExpiry);

        // A long handler (its lease renewed meanwhile) completes an hour after the reservation.
        Instant late = T0.plus(Duration.ofHours(1));
        assertThat(reservation.renew(late.minusSeconds(10), LEASE)).isTrue();
        assertThat(reservation.complete(response(200, new byte[] {1}))).isTrue();

        IdempotencyRecord record = store.find(key, late).orElseThrow();
        assertThat(record.isCompleted()).isTrue();
        assertThat(record.expiresAt()).as("the completion leaves the expiry alone").isEqualTo(reservedExpiry);
        assertThat(store.find(key, reservedExpiry.minusMillis(1))).as("just before reservation + ttl").isPresent();
        assertThat(store.find(key, reservedExpiry)).as("at reservation + ttl, not completion + ttl").isEmpty();
        assertThat(store.reserve(key, OTHER_FP, reservedExpiry.plusMillis(1), LEASE, TTL))
                .as("free again once reservation + ttl has passed").isInstanceOf(ReserveResult.Acquired.class);
    }

    @Test
    void aCompletionAfterTheTtlRanOutDoesNotReviveTheRecord() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);
        Instant afterTtl = T0.plus(TTL).plusSeconds(1);

        reservation.complete(response(200, new byte[] {1}));

        assertThat(store.find(key, afterTtl)).as("a record past reservation + ttl counts as absent").isEmpty();
        assertThat(store.reserve(key, OTHER_FP, afterTtl, LEASE, TTL)).isInstanceOf(ReserveResult.Acquired.class);
    }

    @Test
    void aTakeOverOfALapsedLeaseRestartsTheTtl() {
        RecordKey key = newKey();
        acquire(key, T0);
        Instant takeoverAt = T0.plus(LEASE).plusSeconds(1);
        Reservation second = acquire(key, takeoverAt);
        assertThat(store.find(key, takeoverAt).orElseThrow().expiresAt())
                .as("a take-over is a new reservation").isEqualTo(takeoverAt.plus(TTL));

        assertThat(second.complete(response(200, new byte[] {2}))).isTrue();

        assertThat(store.find(key, takeoverAt.plusSeconds(5)).orElseThrow().expiresAt())
                .isEqualTo(takeoverAt.plus(TTL));
        assertThat(store.find(key, T0.plus(TTL).plusSeconds(1)))
                .as("still live after the first reservation's ttl").isPresent();
        assertThat(store.find(key, takeoverAt.plus(TTL))).as("gone at the take-over's ttl").isEmpty();
    }

    @Test
    void inFlightRecordWithLapsedLeaseCanBeTakenOverAndTheOldOwnerIsLockedOut() {
        RecordKey key = newKey();
        Reservation first = acquire(key, T0);
        Instant afterLease = T0.plus(LEASE).plusMillis(1);

        existing(store.reserve(key, FP, T0.plus(LEASE).minusMillis(1), LEASE, TTL));
        ReserveResult takeover = store.reserve(key, FP, afterLease, LEASE, TTL);
        assertThat(takeover).isInstanceOf(ReserveResult.Acquired.class);
        Reservation second = ((ReserveResult.Acquired) takeover).reservation();
        assertThat(second.ownerToken()).isNotEqualTo(first.ownerToken());

        assertThat(first.renew(afterLease, LEASE)).as("old owner renews").isFalse();
        assertThat(first.complete(response(200, new byte[] {1}))).as("old owner completes")
                .isFalse();
        assertThat(store.find(key, afterLease).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);

        assertThat(second.complete(response(200, new byte[] {2}))).isTrue();
        assertThat(store.find(key, afterLease).orElseThrow().response().body()).containsExactly(2);
    }

    @Test
    void oldOwnerCannotReleaseTheNewOwnersReservation() {
        RecordKey key = newKey();
        Reservation first = acquire(key, T0);
        Instant afterLease = T0.plus(LEASE).plusMillis(1);
        acquire(key, afterLease);

        assertThat(first.release()).isFalse();
        assertThat(store.find(key, afterLease)).isPresent();
    }

    @Test
    void renewKeepsTheReservationPastItsFirstLease() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);
        Instant beforeLapse = T0.plus(LEASE).minusSeconds(1);

        assertThat(reservation.renew(beforeLapse, LEASE)).isTrue();

        Instant afterFirstLease = T0.plus(LEASE).plusSeconds(1);
        IdempotencyRecord record = existing(store.reserve(key, FP, afterFirstLease, LEASE, TTL));
        assertThat(record.leaseUntil()).isEqualTo(beforeLapse.plus(LEASE));
        assertThat(reservation.complete(response(200, new byte[] {1}))).isTrue();
    }

    @Test
    void completingAfterTheLeaseLapsedStillWorksWhenNobodyTookOver() {
        RecordKey key = newKey();
        Reservation reservation = acquire(key, T0);

        assertThat(reservation.complete(response(200, new byte[] {1})))
                .as("the owner token is unchanged, so no other request ran").isTrue();
        assertThat(store.find(key, T0.plus(LEASE).plusSeconds(6)).orElseThrow().isCompleted()).isTrue();
    }

    @Test
    void insertCompletedStoresOnlyWhenNoLiveRecordExists() {
        RecordKey key = newKey();

        assertThat(store.insertCompleted(key, FP, response(200, new byte[] {1}), T0, TTL)).isTrue();
        assertThat(store.insertCompleted(key, FP, response(200, new byte[] {2}), T0, TTL)).isFalse();
        assertThat(store.find(key, T0).orElseThrow().response().body()).containsExactly(1);

        Instant afterExpiry = T0.plus(TTL).plusMillis(1);
        assertThat(store.insertCompleted(key, OTHER_FP, response(200, new byte[] {3}), afterExpiry, TTL)).isTrue();
        assertThat(store.find(key, afterExpiry).orElseThrow().fingerprint()).isEqualTo(OTHER_FP);
    }

    @Test
    void insertCompletedDoesNotOverwriteAnInFlightReservation() {
        RecordKey key = newKey();
        acquire(key, T0);

        assertThat(store.insertCompleted(key, FP, response(200, new byte[] {1}), T0, TTL)).isFalse();
        assertThat(store.find(key, T0).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);
    }

    @Test
    void everyPartOfTheNamespaceSeparatesRecords() {
        RecordKey key = newKey();
        acquire(key, T0);

        acquire(new RecordKey(key.tenant() + "-other", key.method(), key.path(), key.key()), T0);
        acquire(new RecordKey(key.tenant(), "PUT", key.path(), key.key()), T0);
        acquire(new RecordKey(key.tenant(), key.method(), "/payments", key.key()), T0);
        acquire(new RecordKey(key.tenant(), key.method(), key.path(), key.key() + "x"), T0);
        acquire(new RecordKey(key.tenant(), RecordKey.callerOf("alice"), key.method(), key.path(), key.key()), T0);
        acquire(new RecordKey(key.tenant(), RecordKey.callerOf("bob"), key.method(), key.path(), key.key()), T0);
    }

    @Test
    void aCallersRecordIsFoundOnlyUnderThatCaller() {
        RecordKey anonymous = newKey();
        RecordKey alice = new RecordKey(anonymous.tenant(), RecordKey.callerOf("alice"), anonymous.method(),
                anonymous.path(), anonymous.key());
        acquire(alice, T0).complete(response(201, new byte[] {7}));

        assertThat(store.find(alice, T0).orElseThrow().key()).isEqualTo(alice);
        assertThat(store.find(anonymous, T0)).isEmpty();
        assertThat(store.find(new RecordKey(anonymous.tenant(), RecordKey.callerOf("bob"), anonymous.method(),
                anonymous.path(), anonymous.key()), T0)).isEmpty();
    }

    @Test
    void namespaceValuesKeepUnicodeAndLongKeys() {
        RecordKey key = new RecordKey("tenant-\u00e4\u6f22-" + UUID.randomUUID(), RecordKey.callerOf("\u00e4lice"),
                "POST", "/orders/%E2%82%AC", "k".repeat(255 - 36) + UUID.randomUUID());
        acquire(key, T0).complete(response(200, new byte[] {1}));

        assertThat(store.find(key, T0).orElseThrow().key()).isEqualTo(key);
    }

    /**
     * Whether the storage deletes a record at its expiry by itself (Redis: the key's own
     * {@code PEXPIREAT}), so that {@link Store#purgeExpired} has nothing to do and answers 0; the
     * purge test then checks that instead of batches. Default {@code false}.
     */
    protected boolean expiresRecordsItself() {
        return false;
    }

    @Test
    void purgeDeletesOnlyExpiredRecordsInBoundedBatches() {
        List<RecordKey> expired = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RecordKey key = newKey();
            store.insertCompleted(key, FP, response(200, new byte[] {1}), T0, Duration.ofSeconds(10));
            expired.add(key);
        }
        RecordKey live = newKey();
        store.insertCompleted(live, FP, response(200, new byte[] {1}), T0, TTL);
        RecordKey inFlight = newKey();
        acquire(inFlight, T0);
        Instant later = T0.plusSeconds(11);

        if (expiresRecordsItself()) {
            assertThat(store.purgeExpired(later, 2)).as("nothing to purge: the storage expires records itself")
                    .isZero();
            expired.forEach(key -> assertThat(store.find(key, later)).as("expired records are absent").isEmpty());
        } else {
            List<Integer> batches = new ArrayList<>();
            int purged;
            do {
                purged = store.purgeExpired(later, 2);
                batches.add(purged);
            } while (purged == 2);

            assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isGreaterThanOrEqualTo(5);
            assertThat(batches).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
            expired.forEach(key -> assertThat(store.find(key, T0)).as("purged rows are gone at any time").isEmpty());
        }
        assertThat(store.find(live, later)).isPresent();
        assertThat(store.find(inFlight, later)).isPresent();
    }

    @Test
    void aReservationRenewedPastItsTtlIsNeitherPurgedNorTakenOver() {
        RecordKey key = newKey();
        Duration ttl = LEASE.multipliedBy(2);
        MutableClock clock = new MutableClock(T0);
        Reservation reservation = reserveOrFail(store.reserve(key, FP, T0, LEASE, ttl));
        for (int renewal = 0; renewal < 9; renewal++) { // the handler runs on: T0 + 1.5 ttl
            clock.advance(LEASE.dividedBy(3));
            assertThat(reservation.renew(clock.instant(), LEASE)).as("renewal %d", renewal).isTrue();
        }
        Instant pastTtl = clock.instant().plusSeconds(1);

        purgeAll(pastTtl);

        IdempotencyRecord record = store.find(key, pastTtl).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(record.expiresAt()).as("the expiry follows the lease").isAfterOrEqualTo(record.leaseUntil());
        assertThat(existing(secondInstance().reserve(key, OTHER_FP, pastTtl, LEASE, ttl)).fingerprint())
                .as("not taken over").isEqualTo(FP);
        assertThat(secondInstance().insertCompleted(key, OTHER_FP, response(200, new byte[] {2}), pastTtl, ttl))
                .isFalse();
        assertThat(reservation.complete(response(201, new byte[] {1}))).isTrue();
        assertThat(store.find(key, pastTtl).orElseThrow().response().status()).as("replayed").isEqualTo(201);
    }

    @Test
    void aReservationRenewedPastItsTtlIsPurgedOnceItsLeaseLapses() {
        RecordKey key = newKey();
        Duration ttl = LEASE.multipliedBy(2);
        Reservation reservation = reserveOrFail(store.reserve(key, FP, T0, LEASE, ttl));
        Instant lastRenewal = T0.plus(ttl).minusSeconds(1);
        assertThat(reservation.renew(lastRenewal, LEASE)).isTrue();
        Instant leaseEnd = lastRenewal.plus(LEASE);

        assertThat(store.find(key, leaseEnd.minusMillis(1))).as("held until its lease ends").isPresent();
        purgeAll(leaseEnd.plusMillis(1));

        assertThat(store.find(key, leaseEnd.plusMillis(1))).isEmpty();
        if (!expiresRecordsItself()) {
            assertThat(store.find(key, T0)).as("purged, gone at any time").isEmpty();
        }
        assertThat(secondInstance().reserve(key, OTHER_FP, leaseEnd.plusMillis(1), LEASE, ttl))
                .isInstanceOf(ReserveResult.Acquired.class);
        assertThat(reservation.complete(response(201, new byte[] {1}))).as("the lost handler").isFalse();
    }

    private static Reservation reserveOrFail(ReserveResult result) {
        assertThat(result).as("reserve on a free key").isInstanceOf(ReserveResult.Acquired.class);
        return ((ReserveResult.Acquired) result).reservation();
    }

    /** Runs {@link Store#purgeExpired} in batches until a batch comes back short. */
    private void purgeAll(Instant now) {
        int purged;
        do {
            purged = store.purgeExpired(now, 100);
        } while (purged == 100);
    }

    @Test
    void exactlyOneOfManyConcurrentReservationsWinsAcrossTwoInstances() throws Exception {
        RecordKey key = newKey();

        List<ReserveResult> results = race((instance, i) -> instance.reserve(key, FP, T0, LEASE, TTL));

        assertExactlyOneWinner(results, FP);
    }

    @Test
    void exactlyOneOfManyConcurrentTakeoversOfALapsedLeaseWins() throws Exception {
        RecordKey key = newKey();
        acquire(key, T0);
        Instant afterLease = T0.plus(LEASE).plusMillis(1);

        List<ReserveResult> results = race((instance, i) -> instance.reserve(key, OTHER_FP, afterLease, LEASE, TTL));

        assertExactlyOneWinner(results, OTHER_FP);
    }

    @Test
    void exactlyOneOfManyConcurrentInsertsOfACompletedRecordWins() throws Exception {
        RecordKey key = newKey();

        List<Boolean> inserted = race((instance, i) ->
                instance.insertCompleted(key, FP, response(200, new byte[] {(byte) i.intValue()}), T0, TTL));

        assertThat(inserted.stream().filter(Boolean::booleanValue).count()).isEqualTo(1);
        int winner = inserted.indexOf(true);
        assertThat(store.find(key, T0).orElseThrow().response().body()).containsExactly((byte) winner);
    }

    private static void assertExactlyOneWinner(List<ReserveResult> results, String winnersFingerprint) {
        assertThat(results.stream().filter(r -> r instanceof ReserveResult.Acquired).count()).isEqualTo(1);
        results.stream().filter(r -> r instanceof ReserveResult.Existing).forEach(r -> {
            IdempotencyRecord seen = ((ReserveResult.Existing) r).record();
            assertThat(seen.state()).isEqualTo(RecordState.IN_FLIGHT);
            assertThat(seen.fingerprint()).as("every loser sees the winner").isEqualTo(winnersFingerprint);
        });
    }

    /** Runs {@code call} on 32 threads at once, alternating between the two store instances. */
    private <T> List<T> race(java.util.function.BiFunction<Store, Integer, T> call) throws Exception {
        int threads = 32;
        Store[] instances = {store, secondInstance()};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Store instance = instances[i % 2];
                int index = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    return call.apply(instance, index);
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void findOnAnUnknownKeyIsEmpty() {
        Optional<IdempotencyRecord> record = store.find(newKey(), T0);
        assertThat(record).isEmpty();
    }
}
