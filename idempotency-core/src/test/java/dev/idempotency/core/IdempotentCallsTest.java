package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.KeyReusedException;
import dev.idempotency.core.call.ResultNotStoredException;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.testkit.InterceptingStore;
import dev.idempotency.testkit.MutableClock;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The blocking face of the idempotent calls, in each mode, over the in-memory store. */
class IdempotentCallsTest {

    record Charge(String account, long cents) {
    }

    record Receipt(String id, long cents, List<String> notes) {
    }

    static final class Declined extends Exception {
    }

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryStore memory = new InMemoryStore();
    private final AtomicInteger runs = new AtomicInteger();
    private final List<IdempotentCalls> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(IdempotentCalls::close);
    }

    private IdempotentCalls calls(Mode mode) {
        return calls(mode, b -> b);
    }

    private IdempotentCalls calls(Mode mode, UnaryOperator<IdempotencyConfig.Builder> customize) {
        Store store = mode == Mode.ATOMIC ? TestStores.transactional(memory) : memory;
        return open(new IdempotentCalls(store, customize.apply(IdempotencyConfig.builder().clock(clock).mode(mode)).build()));
    }

    private IdempotentCalls open(IdempotentCalls calls) {
        opened.add(calls);
        return calls;
    }

    private Receipt pay(Charge charge) {
        runs.incrementAndGet();
        return new Receipt("r-" + runs.get(), charge.cents(), List.of("paid"));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRepeatReturnsTheFirstResultWithoutRunning(Mode mode) {
        IdempotentCalls calls = calls(mode);
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 500));

        CallOutcome<Receipt> first = calls.run(call, Receipt.class, context -> pay(new Charge("acct-1", 500)));
        CallOutcome<Receipt> repeat = calls.run(call, Receipt.class, context -> pay(new Charge("acct-1", 500)));

        Receipt expected = new Receipt("r-1", 500, List.of("paid"));
        assertThat(first).isEqualTo(new CallOutcome.Executed<>(expected));
        assertThat(repeat).isEqualTo(new CallOutcome.Replayed<>(expected));
        assertThat(((CallOutcome.Replayed<Receipt>) repeat).value()).isInstanceOf(Receipt.class);
        assertThat(calls.call(call, Receipt.class, context -> pay(new Charge("acct-1", 500)))).isEqualTo(expected);
        assertThat(runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void anotherInputUnderTheKeyIsRefused(Mode mode) {
        IdempotentCalls calls = calls(mode);
        calls.run(IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 500)), Receipt.class,
                context -> pay(new Charge("acct-1", 500)));

        IdempotentCall other = IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 501));
        assertThat(calls.run(other, Receipt.class, context -> pay(new Charge("acct-1", 501))))
                .isEqualTo(new CallOutcome.KeyReused<>());
        assertThatThrownBy(() -> calls.call(other, Receipt.class, context -> pay(new Charge("acct-1", 501))))
                .isInstanceOf(KeyReusedException.class)
                .hasMessageContaining("scope payments").hasMessageNotContaining("k-0001");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aGenericResultTypeIsReplayedAsThatType() throws Exception {
        IdempotentCalls calls = calls(Mode.RESERVE);
        Type receipts = IdempotentCallsTest.class.getDeclaredMethod("receipts").getGenericReturnType();
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 500));

        List<Receipt> first = calls.call(call, receipts, context -> List.of(pay(new Charge("acct-1", 500))));
        List<Receipt> repeat = calls.call(call, receipts, context -> List.of(pay(new Charge("acct-1", 500))));

        assertThat(repeat).isEqualTo(first).first().isInstanceOf(Receipt.class);
        assertThat(runs).hasValue(1);
    }

    private static List<Receipt> receipts() {
        return List.of();
    }

    @Test
    void theInputIsFingerprintedAsCanonicalJson() {
        IdempotentCalls calls = calls(Mode.RESERVE);
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("account", "acct-1");
        input.put("cents", 500);
        Map<String, Object> reordered = new LinkedHashMap<>();
        reordered.put("cents", 500);
        reordered.put("account", "acct-1");

        calls.run(IdempotentCall.of("payments", "k-0001", input), Receipt.class, c -> pay(new Charge("acct-1", 500)));
        CallOutcome<Receipt> repeat = calls.run(IdempotentCall.of("payments", "k-0001", reordered), Receipt.class,
                c -> pay(new Charge("acct-1", 500)));

        assertThat(repeat).isInstanceOf(CallOutcome.Replayed.class);
        assertThat(runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aThrowingActionReleasesTheKeyAndIsRethrownUnchanged(Mode mode) {
        IdempotentCalls calls = calls(mode);
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 500));
        Declined declined = new Declined();

        assertThatThrownBy(() -> calls.run(call, Receipt.class, context -> {
            runs.incrementAndGet();
            throw declined;
        })).isSameAs(declined);
        assertThat(calls.run(call, Receipt.class, context -> pay(new Charge("acct-1", 500))))
                .isEqualTo(new CallOutcome.Executed<>(new Receipt("r-2", 500, List.of("paid"))));
        assertThat(runs).hasValue(2);
    }

    @Test
    void theConfigIsTheOneGivenWithTheCallMethodCovered() {
        IdempotentCalls calls = open(new IdempotentCalls(memory, IdempotencyConfig.builder().clock(clock)
                .inFlightWait(java.time.Duration.ofSeconds(2)).build()));

        assertThat(calls.config().inFlightWait()).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(calls.config().methods()).contains(IdempotentCalls.METHOD);
    }

    @Test
    void aResultTheCodecCannotEncodeFailsTheCallAndReleasesTheKey() {
        IdempotentCalls calls = calls(Mode.RESERVE);
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", 1);

        assertThatThrownBy(() -> calls.run(call, Object.class, context -> {
            runs.incrementAndGet();
            return new Object(); // no properties: Jackson refuses to write it
        })).isInstanceOf(IllegalArgumentException.class).hasMessage("Cannot encode a java.lang.Object as JSON");
        assertThat(calls.run(call, Object.class, context -> runs.incrementAndGet()))
                .isEqualTo(new CallOutcome.Executed<Object>(2));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStorageOutageIsAnOutcomeAndRunsNothing(Mode mode) {
        Store failing = new InterceptingStore(memory, operation -> {
            throw new StorageUnavailableException(StorageUnavailableException.Reason.BUSY, "pool exhausted", null);
        });
        Store down = mode == Mode.ATOMIC ? new TestStores.Transactional(failing, r -> r) : failing;
        IdempotentCalls calls = open(new IdempotentCalls(down, IdempotencyConfig.builder().clock(clock).mode(mode).build()));
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 500));

        CallOutcome<Receipt> outcome = calls.run(call, Receipt.class, context -> pay(new Charge("acct-1", 500)));

        assertThat(outcome).isInstanceOf(CallOutcome.StorageUnavailable.class);
        assertThat(((CallOutcome.StorageUnavailable<Receipt>) outcome).reason())
                .isEqualTo(StorageUnavailableException.Reason.BUSY);
        assertThatThrownBy(() -> calls.call(call, Receipt.class, context -> pay(new Charge("acct-1", 500))))
                .isInstanceOfSatisfying(StorageUnavailableException.class,
                        e -> assertThat(e.reason()).isEqualTo(StorageUnavailableException.Reason.BUSY));
        assertThat(runs).hasValue(0);
    }

    @Test
    void theAtomicActionReachesTheTransactionAndAFailedCommitIsAnOutage() {
        IdempotentCalls calls = open(new IdempotentCalls(atomicFailingCommit(memory),
                IdempotencyConfig.builder().clock(clock).mode(Mode.ATOMIC).build()));
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", new Charge("acct-1", 500));
        List<Optional<String>> transactions = new ArrayList<>();

        CallOutcome<Receipt> outcome = calls.run(call, Receipt.class, context -> {
            transactions.add(context.unwrap(String.class));
            return pay(new Charge("acct-1", 500));
        });

        assertThat(transactions).containsExactly(Optional.of("the transaction"));
        assertThat(outcome).isEqualTo(new CallOutcome.StorageUnavailable<>(StorageUnavailableException.Reason.UNREACHABLE, null));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aResultTheReplayPolicyWouldRefuseIsStoredAll(Mode mode) {
        IdempotentCalls calls = calls(mode);
        IdempotentCall call = IdempotentCall.of("imports", "k-0001", "batch-7");
        Map<String, String> failed = Map.of("status", "failed");

        calls.run(call, Map.class, context -> {
            runs.incrementAndGet();
            return failed;
        });

        assertThat(calls.run(call, Map.class, context -> Map.of())).isEqualTo(new CallOutcome.Replayed<>(failed));
        assertThat(runs).hasValue(1);
    }

    @Test
    void aNullResultAndANullInputAreReplayed() {
        IdempotentCalls calls = calls(Mode.RESERVE);
        IdempotentCall call = IdempotentCall.of("cleanup", "k-0001", null);

        assertThat(calls.run(call, Void.class, context -> {
            runs.incrementAndGet();
            return null;
        })).isEqualTo(new CallOutcome.Executed<Void>(null));
        assertThat(calls.run(call, Void.class, context -> null)).isEqualTo(new CallOutcome.Replayed<Void>(null));
        assertThat(runs).hasValue(1);
    }

    @Test
    void aResultTooLargeToStoreLetsNoRepeatRun() {
        IdempotentCalls calls = calls(Mode.RESERVE, b -> b.maxStoredBodyBytes(16));
        IdempotentCall call = IdempotentCall.of("reports", "k-0001", 1);

        assertThat(calls.call(call, String.class, context -> "x".repeat(100))).hasSize(100);

        assertThat(calls.run(call, String.class, context -> "again")).isEqualTo(new CallOutcome.ResultNotStored<>());
        assertThatThrownBy(() -> calls.call(call, String.class, context -> "again"))
                .isInstanceOf(ResultNotStoredException.class);
    }

    @Test
    void callsAreFiledUnderTheirMethodScopeTenantAndCaller() {
        IdempotentCalls calls = calls(Mode.RESERVE, b -> b.tenantResolver(TenantResolver.fixed("acme")));
        IdempotentCall call = IdempotentCall.of("orders.create", "k-0001", 1);

        calls.call(call, Integer.class, context -> runs.incrementAndGet());
        calls.call(call.tenant("globex"), Integer.class, context -> runs.incrementAndGet());
        calls.call(call.caller("alice"), Integer.class, context -> runs.incrementAndGet());
        assertThat(calls.call(call.caller("alice"), Integer.class, context -> runs.incrementAndGet())).isEqualTo(3);

        assertThat(runs).hasValue(3);
        assertThat(memory.find(new RecordKey("acme", IdempotentCalls.METHOD, "/orders.create", "k-0001"),
                clock.instant())).isPresent();
        assertThat(memory.find(new RecordKey("globex", IdempotentCalls.METHOD, "/orders.create", "k-0001"),
                clock.instant())).isPresent();
        assertThat(memory.find(new RecordKey("acme", RecordKey.callerOf("alice"), IdempotentCalls.METHOD,
                "/orders.create", "k-0001"), clock.instant())).isPresent();
    }

    @Test
    void aKeyIsTakenExactlyEvenWithQuotesAndBackslashes() {
        IdempotentCalls calls = calls(Mode.RESERVE);
        String key = "a \"quoted\" \\ key";

        calls.call(IdempotentCall.of("payments", key, 1), Integer.class, context -> runs.incrementAndGet());

        Optional<?> record = memory.find(recordKey("default", key), clock.instant());
        assertThat(record).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "ключ", "a\nb"})
    void anInvalidKeyIsRefused(String key) {
        IdempotentCalls calls = calls(Mode.RESERVE);
        assertThatThrownBy(() -> calls.run(IdempotentCall.of("payments", key, 1), Integer.class,
                context -> runs.incrementAndGet()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
        assertThat(runs).hasValue(0);
    }

    @Test
    void aBlankCallerOrAnOverlongTenantIsRefused() {
        IdempotentCalls calls = calls(Mode.RESERVE);
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", 1);

        assertThatThrownBy(() -> calls.run(call.caller(""), Integer.class, context -> runs.incrementAndGet()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("caller");
        assertThatThrownBy(() -> calls.run(call.tenant("t".repeat(RecordKey.MAX_TENANT_LENGTH + 1)), Integer.class,
                context -> runs.incrementAndGet()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tenant");
        assertThat(runs).hasValue(0);
    }

    @Test
    void anInputOverTheBodyLimitIsRefused() {
        IdempotentCalls calls = calls(Mode.RESERVE, b -> b.maxRequestBodyBytes(8));
        assertThatThrownBy(() -> calls.run(IdempotentCall.of("payments", "k-0001", "0123456789"), Integer.class,
                context -> runs.incrementAndGet()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRequestBodyBytes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "orders/create", "pay ments", "caf%C3%A9", "café", "a?b", "a#b"})
    void aScopeThatIsNotAPathSegmentIsRefused(String scope) {
        assertThatThrownBy(() -> IdempotentCall.of(scope, "k-0001", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scope");
    }

    @Test
    void aScopeIsAShortName() {
        assertThat(IdempotentCall.of("orders.create_v2~x-y", "k", 1).scope()).isEqualTo("orders.create_v2~x-y");
        assertThat(IdempotentCall.of("s".repeat(IdempotentCall.MAX_SCOPE_LENGTH), "k", 1).scope()).hasSize(100);
        assertThatThrownBy(() -> IdempotentCall.of("s".repeat(IdempotentCall.MAX_SCOPE_LENGTH + 1), "k", 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void httpRequestsKeepTheirReplayPolicyAndNeverMeetACall() {
        IdempotencyConfig config = IdempotencyConfig.builder().clock(clock).build();
        IdempotentCalls calls = open(new IdempotentCalls(memory, config));
        calls.call(IdempotentCall.of("payments", "k-0001", Map.of("status", "failed")), Map.class,
                context -> Map.of("status", "failed"));

        try (IdempotencyEngine http = new IdempotencyEngine(memory, config)) {
            RequestView post = RequestView.of("POST", "/payments", Map.of("Idempotency-Key", List.of("k-0001"),
                    "Content-Type", List.of("application/json")), "{}".getBytes(StandardCharsets.UTF_8));
            for (int attempt = 0; attempt < 2; attempt++) {
                Decision decision = http.before(post);
                assertThat(decision).as("attempt %d runs: the call's record is not the request's", attempt)
                        .isInstanceOf(Decision.Proceed.class);
                ((Decision.Proceed) decision).execution().finish(CapturedResponse.of(200,
                        Map.of("Content-Type", List.of("application/json")),
                        "{\"status\":\"failed\"}".getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    private static RecordKey recordKey(String tenant, String key) {
        return new RecordKey(tenant, IdempotentCalls.METHOD, "/payments", key);
    }

    /** {@link TestStores#transactional}, whose commit (the completion) is refused. */
    private static Store atomicFailingCommit(Store memory) {
        return new TestStores.Transactional(memory, inner -> new TestStores.ForwardingReservation(inner) {
            @Override
            public <T> Optional<T> unwrap(Class<T> type) {
                return type == String.class ? Optional.of(type.cast("the transaction")) : Optional.empty();
            }

            @Override
            protected boolean doComplete(StoredResponse response) {
                throw new IllegalStateException("serialization failure");
            }
        });
    }
}
