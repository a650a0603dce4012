package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import dev.idempotency.core.call.CallContext;
import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.store.RecordKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Idempotent calls in the atomic mode over the JDBC store: the action writes through the call's
 * transaction, and its write and the stored result commit together or not at all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractAtomicCallsTest {

    record Payment(String account, long cents) {
    }

    record Receipt(String paymentId, long cents) {
    }

    private static final int DUPLICATES = 8;

    TestDatabase db;
    HikariDataSource pool;
    JdbcStore store;
    ExecutorService threads;

    abstract TestDatabase openDatabase();

    @BeforeAll
    void open() {
        db = openDatabase();
        pool = db.pool("atomic-calls", DUPLICATES + 4);
        store = JdbcStore.create(pool);
        store.createTableIfMissing();
        db.execute("CREATE TABLE payments (payment_id VARCHAR(100) PRIMARY KEY, call_key VARCHAR(100) NOT NULL, "
                + "cents BIGINT NOT NULL)");
        threads = Executors.newCachedThreadPool();
    }

    @AfterAll
    void close() {
        threads.shutdownNow();
        db.close();
    }

    private IdempotentCalls calls(Duration inFlightWait) {
        return new IdempotentCalls(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).inFlightWait(inFlightWait)
                .build());
    }

    /** The action: one payment row, written on the call's own connection. */
    private static Receipt pay(CallContext context, String key, Payment payment) throws SQLException {
        Connection connection = context.unwrap(Connection.class).orElseThrow();
        String id = UUID.randomUUID().toString();
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO payments (payment_id, call_key, cents) VALUES (?, ?, ?)")) {
            insert.setString(1, id);
            insert.setString(2, key);
            insert.setLong(3, payment.cents());
            insert.executeUpdate();
        }
        return new Receipt(id, payment.cents());
    }

    /** Payment rows of {@code key}, as another connection sees them (committed only). */
    private long payments(String key) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement count = c.prepareStatement("SELECT count(*) FROM payments WHERE call_key = ?")) {
            count.setString(1, key);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private boolean recordCompleted(String key) {
        return store.find(new RecordKey("default", IdempotentCalls.METHOD, "/payments", key), Instant.now())
                .filter(record -> record.isCompleted()).isPresent();
    }

    @Test
    void theActionsWriteAndTheResultCommitTogether() throws Exception {
        String key = "call-" + UUID.randomUUID();
        Payment payment = new Payment("acct-1", 500);
        try (IdempotentCalls calls = calls(Duration.ZERO)) {
            IdempotentCall call = IdempotentCall.of("payments", key, payment);
            List<Long> seenInside = new ArrayList<>();

            CallOutcome<Receipt> first = calls.run(call, Receipt.class, context -> {
                Receipt receipt = pay(context, key, payment);
                seenInside.add(payments(key));
                return receipt;
            });
            CallOutcome<Receipt> repeat = calls.run(call, Receipt.class, context -> pay(context, key, payment));

            assertThat(seenInside).as("uncommitted while the action runs").containsExactly(0L);
            assertThat(first).isInstanceOf(CallOutcome.Executed.class);
            assertThat(repeat).isEqualTo(new CallOutcome.Replayed<>(((CallOutcome.Executed<Receipt>) first).value()));
            assertThat(payments(key)).isEqualTo(1);
            assertThat(recordCompleted(key)).isTrue();
        }
    }

    @Test
    void aThrowingActionRollsItsWriteBackAndFreesTheKey() throws Exception {
        String key = "call-" + UUID.randomUUID();
        Payment payment = new Payment("acct-1", 500);
        IllegalStateException declined = new IllegalStateException("declined");
        try (IdempotentCalls calls = calls(Duration.ZERO)) {
            IdempotentCall call = IdempotentCall.of("payments", key, payment);

            assertThatThrownBy(() -> calls.run(call, Receipt.class, context -> {
                pay(context, key, payment);
                throw declined;
            })).isSameAs(declined);
            assertThat(payments(key)).isZero();
            assertThat(recordCompleted(key)).isFalse();

            assertThat(calls.run(call, Receipt.class, context -> pay(context, key, payment)))
                    .isInstanceOf(CallOutcome.Executed.class);
            assertThat(payments(key)).isEqualTo(1);
        }
    }

    @Test
    void concurrentDuplicatesWaitForTheFirstAndGetItsResult() throws Exception {
        String key = "call-" + UUID.randomUUID();
        Payment payment = new Payment("acct-1", 500);
        AtomicInteger runs = new AtomicInteger();
        try (IdempotentCalls calls = calls(Duration.ofSeconds(20))) {
            IdempotentCall call = IdempotentCall.of("payments", key, payment);
            CyclicBarrier start = new CyclicBarrier(DUPLICATES);
            List<Future<CallOutcome<Receipt>>> futures = new ArrayList<>();
            for (int i = 0; i < DUPLICATES; i++) {
                futures.add(threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return calls.run(call, Receipt.class, context -> {
                        runs.incrementAndGet();
                        Thread.sleep(200); // holds its transaction while the others arrive
                        return pay(context, key, payment);
                    });
                }));
            }
            List<CallOutcome<Receipt>> outcomes = new ArrayList<>();
            for (Future<CallOutcome<Receipt>> future : futures) {
                outcomes.add(future.get(30, TimeUnit.SECONDS));
            }

            assertThat(runs).hasValue(1);
            assertThat(payments(key)).isEqualTo(1);
            List<CallOutcome<Receipt>> executed = outcomes.stream()
                    .filter(o -> o instanceof CallOutcome.Executed).toList();
            assertThat(executed).hasSize(1);
            Receipt receipt = ((CallOutcome.Executed<Receipt>) executed.get(0)).value();
            assertThat(outcomes).filteredOn(o -> o instanceof CallOutcome.Replayed)
                    .hasSize(DUPLICATES - 1).containsOnly(new CallOutcome.Replayed<>(receipt));
        }
    }
}
