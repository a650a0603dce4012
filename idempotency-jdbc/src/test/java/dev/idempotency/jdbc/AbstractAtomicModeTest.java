package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.internal.Dialects;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlReserve;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The atomic mode through the engine: the handler's business write (a row in a table of the
 * test's own) and the idempotency record commit together, roll back together, or — for a
 * response that is not stored — the write commits without a record. Duplicates wait for the
 * first transaction or are answered at once, as configured, and never hang: 409 for the same body
 * and 422 for a different one, also while the first is still inside its transaction.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractAtomicModeTest {

    static final String ORDER = "{\"sku\":1}";
    static final String OTHER_ORDER = "{\"sku\":2}";

    TestDatabase db;
    HikariDataSource pool;
    JdbcStore store;
    ExecutorService threads;

    abstract TestDatabase openDatabase();

    @BeforeAll
    void open() {
        db = openDatabase();
        pool = db.pool("atomic", 12);
        store = JdbcStore.create(pool);
        store.createTableIfMissing();
        db.execute("CREATE TABLE business_orders (order_key VARCHAR(100) PRIMARY KEY, item VARCHAR(100) NOT NULL)");
        threads = Executors.newCachedThreadPool();
    }

    @AfterAll
    void close() {
        threads.shutdownNow();
        db.close();
    }

    IdempotencyEngine engine(Duration inFlightWait) {
        return new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).inFlightWait(inFlightWait)
                .build());
    }

    static String newKey() {
        return "atomic-" + UUID.randomUUID();
    }

    /** The handler's business write, on the request's own connection. */
    static void writeOrder(Execution execution, String key) throws SQLException {
        Connection c = execution.unwrap(Connection.class).orElseThrow();
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO business_orders (order_key, item) VALUES (?, ?)")) {
            insert.setString(1, key);
            insert.setString(2, "book");
            insert.executeUpdate();
        }
    }

    /** Business rows for {@code key}, as any other connection sees them (committed only). */
    long orders(String key) throws SQLException {
        return orders(pool, key);
    }

    /** Business rows for {@code key}, as a connection of {@code from} sees them. */
    static long orders(DataSource from, String key) throws SQLException {
        try (Connection c = from.getConnection();
             PreparedStatement count = c.prepareStatement("SELECT count(*) FROM business_orders WHERE order_key = ?")) {
            count.setString(1, key);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    boolean recordExists(String key) {
        return store.find(new RecordKey("default", "POST", "/orders", key), Instant.now()).isPresent();
    }

    static Execution proceed(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        return ((Decision.Proceed) decision).execution();
    }

    static Decision.Respond respond(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        return (Decision.Respond) decision;
    }

    /** {@code "<status> <problem code>"} of a problem answer, {@code "replay"} for a replay. */
    static String answer(Decision.Respond respond) {
        if (respond.isReplay()) {
            return "replay";
        }
        Matcher code = PROBLEM_CODE.matcher(new String(respond.reply().body(), StandardCharsets.UTF_8));
        return respond.reply().status() + (code.find() ? " " + code.group(1) : "");
    }

    static final String IN_PROGRESS = "409 idempotency_request_in_progress";
    static final String CONFLICT = "422 idempotency_key_conflict";
    static final String STORAGE_UNAVAILABLE = "503 idempotency_storage_unavailable";
    private static final Pattern PROBLEM_CODE = Pattern.compile("\"code\"\\s*:\\s*\"([a-z_]+)\"");

    @FunctionalInterface
    interface InHandler {
        void run() throws Exception;
    }

    /**
     * One request through the engine as an adapter runs it: when it proceeds, the handler counts
     * itself, writes its order in the request's transaction, runs {@code inHandler} (still inside
     * the transaction) and answers 201 with a stored response; otherwise the answer.
     */
    static String handle(IdempotencyEngine engine, String key, String body, AtomicInteger executions,
                         InHandler inHandler) throws Exception {
        Decision decision = engine.before(Requests.post("/orders", key, body));
        if (decision instanceof Decision.Proceed proceed) {
            executions.incrementAndGet();
            try {
                writeOrder(proceed.execution(), key);
                inHandler.run();
            } catch (Exception | AssertionError e) {
                proceed.execution().fail(e);
                throw e;
            }
            proceed.execution().finish(Requests.created("{\"order\":1}"));
            return "201";
        }
        return answer((Decision.Respond) decision);
    }

    @Test
    void aStorableResponseCommitsTheHandlersWriteAndTheRecordTogether() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution execution = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(execution, key);

            assertThat(orders(key)).as("uncommitted: invisible to others").isZero();
            assertThat(recordExists(key)).isFalse();

            assertThat(execution.finish(Requests.created("{\"order\":1}"))).isEmpty();

            assertThat(orders(key)).isEqualTo(1);
            assertThat(recordExists(key)).isTrue();
            Decision.Respond replay = respond(engine.before(Requests.post("/orders", key, ORDER)));
            assertThat(replay.isReplay()).isTrue();
            assertThat(new String(replay.reply().body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":1}");
            assertThat(orders(key)).isEqualTo(1);
        }
    }

    @Test
    void aCompletionThatFindsItsReservationRowGoneCommitsNothing() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution execution = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(execution, key);
            org.jooq.DSLContext dsl = execution.unwrap(org.jooq.DSLContext.class).orElseThrow();
            assertThat(dsl.deleteFrom(org.jooq.impl.DSL.table(org.jooq.impl.DSL.name(store.tableName())))
                    .where(org.jooq.impl.DSL.field(org.jooq.impl.DSL.name("key")).eq(key)).execute())
                    .as("the handler removes its own reservation row").isEqualTo(1);

            execution.finish(Requests.created("{\"order\":1}"));

            assertThat(orders(key)).as("no write without its record").isZero();
            assertThat(recordExists(key)).isFalse();
            Execution retry = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(retry, key);
            assertThat(retry.finish(Requests.created("{\"order\":2}"))).isEmpty();
            assertThat(orders(key)).isEqualTo(1);
            assertThat(recordExists(key)).isTrue();
        }
    }

    @Test
    void aFailingHandlerRollsBackItsWriteAndTheReservationAndTheRetryRuns() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution execution = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(execution, key);

            execution.fail(new IllegalStateException("the handler threw"));

            assertThat(orders(key)).isZero();
            assertThat(recordExists(key)).isFalse();
            Execution retry = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(retry, key);
            retry.finish(Requests.created("{\"order\":2}"));
            assertThat(orders(key)).isEqualTo(1);
            assertThat(recordExists(key)).isTrue();
        }
    }

    @Test
    void aResponseThatIsNotStoredCommitsTheWriteWithoutARecordAndTheRetryRunsAgain() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution execution = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(execution, key);

            execution.finish(CapturedResponse.of(200, Map.of("Content-Type", List.of("application/json")),
                    "{\"status\":\"partial\"}".getBytes(StandardCharsets.UTF_8)));

            assertThat(orders(key)).as("the handler's write stays").isEqualTo(1);
            assertThat(recordExists(key)).as("no record survives").isFalse();
            Execution retry = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            retry.finish(CapturedResponse.of(503, Map.of(), new byte[0]));
            assertThat(recordExists(key)).isFalse();
        }
    }

    @Test
    void withoutWaitingADuplicateGets409AtOnceAndADifferentBody422() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution first = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(first, key);

            long started = System.nanoTime();
            Decision.Respond duplicate = respond(engine.before(Requests.post("/orders", key, ORDER)));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            Decision.Respond otherBody = respond(engine.before(Requests.post("/orders", key, "{\"sku\":2}")));

            assertThat(duplicate.reply().status()).isEqualTo(409);
            assertThat(millis).as("answered without waiting for the first transaction").isLessThan(1000);
            assertThat(otherBody.reply().status()).as("a different body, while the first is uncommitted")
                    .isEqualTo(422);
            long[] more = new long[20];
            for (int i = 0; i < more.length; i++) {
                long t = System.nanoTime();
                assertThat(respond(engine.before(Requests.post("/orders", key, ORDER))).reply().status()).isEqualTo(409);
                more[i] = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t);
            }
            java.util.Arrays.sort(more);
            System.out.printf("[atomic] %s: 409 for an uncommitted duplicate with wait=0: first %d ms, then median %.1f ms,"
                    + " max %.1f ms of %d%n", db.kind, millis, more[more.length / 2] / 1000.0, more[more.length - 1] / 1000.0,
                    more.length);

            first.finish(Requests.created("{\"order\":1}"));
            assertThat(respond(engine.before(Requests.post("/orders", key, "{\"sku\":2}"))).reply().status())
                    .isEqualTo(422);
            assertThat(respond(engine.before(Requests.post("/orders", key, ORDER))).isReplay()).isTrue();
        }
    }

    /** Starts a request whose handler waits inside its transaction for {@code letGo}; returns once it is there. */
    Future<String> runUntilLetGo(IdempotencyEngine engine, String key, AtomicInteger executions, CountDownLatch letGo)
            throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        Future<String> first = threads.submit(() -> handle(engine, key, ORDER, executions, () -> {
            inside.countDown();
            assertThat(letGo.await(30, TimeUnit.SECONDS)).isTrue();
        }));
        assertThat(inside.await(10, TimeUnit.SECONDS)).as("the first handler is inside its transaction").isTrue();
        return first;
    }

    @Test
    void whileTheFirstIsStillInItsTransactionADifferentBodyGets422AndTheSameBody409() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            AtomicInteger executions = new AtomicInteger();
            CountDownLatch letGo = new CountDownLatch(1);
            Future<String> first = runUntilLetGo(engine, key, executions, letGo);
            try {
                assertThat(handle(engine, key, OTHER_ORDER, executions, () -> { }))
                        .as("a different body while the first is uncommitted").isEqualTo(CONFLICT);
                assertThat(handle(engine, key, ORDER, executions, () -> { }))
                        .as("the same body while the first is uncommitted").isEqualTo(IN_PROGRESS);
                assertThat(handle(engine, key, OTHER_ORDER, executions, () -> { })).as("asked again").isEqualTo(CONFLICT);
                assertThat(executions).as("only the first handler ran").hasValue(1);
                assertThat(orders(key)).as("the first is still uncommitted").isZero();
            } finally {
                letGo.countDown();
            }

            assertThat(first.get(10, TimeUnit.SECONDS)).as("the first still commits").isEqualTo("201");
            assertThat(orders(key)).isEqualTo(1);
            Decision.Respond replay = respond(engine.before(Requests.post("/orders", key, ORDER)));
            assertThat(replay.isReplay()).isTrue();
            assertThat(new String(replay.reply().body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":1}");
            assertThat(handle(engine, key, OTHER_ORDER, executions, () -> { })).isEqualTo(CONFLICT);
            assertThat(executions).hasValue(1);
        }
    }

    /**
     * The atomic mode's renewal does no I/O: the open transaction guards the row. Past its ttl and
     * its lease, the uncommitted row is invisible to the purge (or locked against it until the
     * commit) and held against a duplicate by the transaction's locks: PostgreSQL's advisory locks
     * answer 409; on MariaDB and H2 the row's lease has lapsed by its own columns, so the
     * duplicate, unable to tell who holds the key, is answered 503 busy. Never a second run.
     */
    @Test
    void pastItsTtlAndLeaseTheOpenTransactionsRowIsNeitherPurgedNorTakenOver() throws Exception {
        MutableClock clock = new MutableClock(Instant.now());
        try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC)
                .ttl(Duration.ofMinutes(1)).lease(Duration.ofSeconds(30)).clock(clock).build())) {
            String key = newKey();
            AtomicInteger executions = new AtomicInteger();
            CountDownLatch letGo = new CountDownLatch(1);
            Future<String> first = runUntilLetGo(engine, key, executions, letGo);
            clock.advance(Duration.ofMinutes(2));
            Future<Integer> purge = threads.submit(() -> store.purgeExpired(clock.instant(), 100));
            try {
                assertThat(handle(engine, key, ORDER, executions, () -> { })).as("a duplicate past the ttl")
                        .isIn(IN_PROGRESS, STORAGE_UNAVAILABLE);
                assertThat(executions).as("not taken over").hasValue(1);
            } finally {
                letGo.countDown();
            }

            assertThat(first.get(30, TimeUnit.SECONDS)).as("its completion still finds its row").isEqualTo("201");
            purge.get(60, TimeUnit.SECONDS);
            assertThat(orders(key)).isEqualTo(1);
            assertThat(executions).hasValue(1);
        }
    }

    @Test
    void ofManyConcurrentRequestsWithMixedBodiesOneRunsAndEveryOtherIsAnsweredForItsBody() throws Exception {
        int losers = 9;
        int beforeTheCommit = 5; // the winner commits once this many losers have their answer
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            AtomicInteger executions = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch answered = new CountDownLatch(beforeTheCommit);
            AtomicInteger order = new AtomicInteger();
            List<String> bodies = new ArrayList<>();
            List<Future<String>> results = new ArrayList<>();
            AtomicIntegerArray answeredAs = new AtomicIntegerArray(losers + 1);
            for (int i = 0; i <= losers; i++) {
                String body = i % 2 == 0 ? ORDER : OTHER_ORDER;
                int request = i;
                bodies.add(body);
                results.add(threads.submit(() -> {
                    start.await();
                    String result = handle(engine, key, body, executions,
                            () -> assertThat(answered.await(30, TimeUnit.SECONDS)).isTrue());
                    if (!result.equals("201")) {
                        answeredAs.set(request, order.incrementAndGet());
                        answered.countDown();
                    }
                    return result;
                }));
            }
            start.countDown();
            List<String> answers = new ArrayList<>();
            for (Future<String> result : results) {
                answers.add(result.get(60, TimeUnit.SECONDS));
            }

            assertThat(executions).as("the handler ran once").hasValue(1);
            assertThat(orders(key)).isEqualTo(1);
            assertThat(answers).filteredOn("201"::equals).hasSize(1);
            String winnersBody = bodies.get(answers.indexOf("201"));
            for (int i = 0; i <= losers; i++) {
                if (answers.get(i).equals("201")) {
                    continue;
                }
                if (!bodies.get(i).equals(winnersBody)) {
                    assertThat(answers.get(i)).as("request %d, a different body", i).isEqualTo(CONFLICT);
                } else if (answeredAs.get(i) <= beforeTheCommit) {
                    assertThat(answers.get(i)).as("request %d, the same body, answered before the commit", i)
                            .isEqualTo(IN_PROGRESS);
                } else {
                    assertThat(answers.get(i)).as("request %d, the same body, racing the commit", i)
                            .isIn(IN_PROGRESS, "replay");
                }
            }
            System.out.println("[atomic] " + db.kind + ": mixed-body race, winner " + winnersBody + ": " + answers);

            assertThat(handle(engine, key, winnersBody, executions, () -> { })).isEqualTo("replay");
            assertThat(handle(engine, key, winnersBody.equals(ORDER) ? OTHER_ORDER : ORDER, executions, () -> { }))
                    .isEqualTo(CONFLICT);
        }
    }

    /**
     * The window the mixed-body race above can hit under load: the first request's completing
     * UPDATE is written but not yet committed. A duplicate that stops waiting there sees (on
     * MariaDB and H2, by a dirty read) a completion with its own body that may still roll back —
     * no replay — and asks again; still there after the second wait, it is a request in progress
     * (409), never 503 busy, which is for a wait on some other lock.
     */
    @Test
    void aDuplicateThatMeetsTheFirstBetweenItsCompletionAndItsCommitIsAnsweredInProgressNotBusy() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution first = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(first, key);
            Connection c = first.unwrap(Connection.class).orElseThrow();
            org.jooq.DSLContext dsl = first.unwrap(org.jooq.DSLContext.class).orElseThrow();
            String token = dsl.select(org.jooq.impl.DSL.field(org.jooq.impl.DSL.name("owner_token"), String.class))
                    .from(org.jooq.impl.DSL.table(org.jooq.impl.DSL.name(store.tableName())))
                    .where(org.jooq.impl.DSL.field(org.jooq.impl.DSL.name("key")).eq(key)).fetchOne().value1();
            Savepoint beforeCompletion = c.setSavepoint();
            assertThat(JdbcSession.join(session(c, store.dialect()).update("complete", Records.completeValues(
                    new RecordKey("default", "POST", "/orders", key), token, new StoredResponse(201, "application/json",
                            Map.of(), "{\"order\":1}".getBytes(StandardCharsets.UTF_8))))))
                    .as("the completion, not yet committed").isEqualTo(1);

            assertThat(answer(respond(engine.before(Requests.post("/orders", key, ORDER)))))
                    .as("the same body while the completion is uncommitted").isEqualTo(IN_PROGRESS);
            assertThat(answer(respond(engine.before(Requests.post("/orders", key, OTHER_ORDER)))))
                    .as("another body").isEqualTo(CONFLICT);
            assertThat(orders(key)).isZero();

            c.rollback(beforeCompletion);
            assertThat(first.finish(Requests.created("{\"order\":1}"))).isEmpty();
            Decision.Respond replay = respond(engine.before(Requests.post("/orders", key, ORDER)));
            assertThat(replay.isReplay()).isTrue();
            assertThat(orders(key)).isEqualTo(1);
        }
    }

    @Test
    void aKeyHeldByATransactionThatIsNoAtomicReservationIsAnswered503BusyAfterOneMoreAttempt() throws Exception {
        String key = newKey();
        RecordKey recordKey = new RecordKey("default", "POST", "/orders", key);
        Instant longAgo = Records.micros(Instant.now().minus(Duration.ofDays(2)));
        // An uncommitted row that is not live (it expired long ago), written by a plain transaction:
        // no advisory locks on PostgreSQL, nothing live to read on MariaDB and H2 — nobody to tell.
        NewRow expired = new NewRow(recordKey, "c".repeat(64), Records.IN_FLIGHT, "not-atomic",
                longAgo.plusSeconds(30), null, longAgo.plus(Duration.ofDays(1)), longAgo);
        try (IdempotencyEngine engine = engine(Duration.ZERO); Connection plain = pool.getConnection()) {
            plain.setAutoCommit(false);
            try {
                assertThat(reserve(session(plain, store.dialect()), expired, longAgo, false).won()).isTrue();
                // No request holds the key: the wait was for something else, and that is no 409.
                Decision.Respond busy = respond(engine.before(Requests.post("/orders", key, OTHER_ORDER)));
                assertThat(answer(busy)).as("nobody's body to tell, twice: busy").isEqualTo(STORAGE_UNAVAILABLE);
                assertThat(new String(busy.reply().body(), StandardCharsets.UTF_8)).contains("busy");
                assertThat(busy.reply().header("Retry-After")).isNotNull();
            } finally {
                plain.rollback();
                plain.setAutoCommit(true);
            }
            Execution free = proceed(engine.before(Requests.post("/orders", key, OTHER_ORDER)));
            free.finish(Requests.created("{\"order\":1}"));
            assertThat(respond(engine.before(Requests.post("/orders", key, OTHER_ORDER))).isReplay()).isTrue();
        }
    }

    @Test
    void aWaitingDuplicateIsAnsweredWithTheReplayOnceTheFirstCommits() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ofSeconds(5))) {
            String key = newKey();
            Execution first = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(first, key);

            long started = System.nanoTime();
            Future<Decision> duplicate = threads.submit(() -> engine.before(Requests.post("/orders", key, ORDER)));
            Future<Decision> otherBody = threads.submit(() -> engine.before(Requests.post("/orders", key, OTHER_ORDER)));
            Thread.sleep(400);
            assertThat(duplicate).as("waits on the first transaction").isNotDone();
            first.finish(Requests.created("{\"order\":1}"));

            assertThat(answer(respond(otherBody.get(5, TimeUnit.SECONDS)))).isEqualTo(CONFLICT);
            Decision.Respond answer = respond(duplicate.get(5, TimeUnit.SECONDS));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(answer.isReplay()).isTrue();
            assertThat(new String(answer.reply().body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":1}");
            assertThat(millis).isBetween(400L, 5000L);
            assertThat(orders(key)).isEqualTo(1);
        }
    }

    @Test
    void aWaitingDuplicateRunsItselfWhenTheFirstRollsBack() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ofSeconds(5))) {
            String key = newKey();
            Execution first = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(first, key);

            Future<Decision> duplicate = threads.submit(() -> engine.before(Requests.post("/orders", key, ORDER)));
            Thread.sleep(300);
            first.fail(new IllegalStateException("the handler threw"));

            Execution second = proceed(duplicate.get(5, TimeUnit.SECONDS));
            writeOrder(second, key);
            second.finish(Requests.created("{\"order\":2}"));
            assertThat(orders(key)).isEqualTo(1);
        }
    }

    @Test
    void aWaitShorterThanTheFirstRequestEndsIn409OrForADifferentBody422NotAHang() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ofMillis(1500))) {
            String key = newKey();
            Execution first = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(first, key);
            try {
                long started = System.nanoTime();
                Future<Decision> duplicate = threads.submit(() -> engine.before(Requests.post("/orders", key, ORDER)));
                Future<Decision> otherBody = threads.submit(() -> engine.before(Requests.post("/orders", key, OTHER_ORDER)));

                Decision.Respond answer = respond(duplicate.get(10, TimeUnit.SECONDS));
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

                assertThat(answer(answer)).isEqualTo(IN_PROGRESS);
                assertThat(answer(respond(otherBody.get(10, TimeUnit.SECONDS)))).as("a different body, after the same wait")
                        .isEqualTo(CONFLICT);
                // MariaDB counts its lock wait in whole seconds: 1.5 s waits 2 s there.
                assertThat(millis).as("waited about the configured 1.5 s").isBetween(1000L, 6000L);
                System.out.println("[atomic] " + db.kind + ": bounded wait of 1.5 s ended in 409 after " + millis + " ms");
            } finally {
                first.finish(Requests.created("{\"order\":1}"));
            }
            assertThat(orders(key)).isEqualTo(1);
        }
    }

    @Test
    void ofManyConcurrentRequestsWithOneKeyExactlyOneWritesAndTheOthersReplay() throws Exception {
        int requests = 10;
        try (IdempotencyEngine engine = engine(Duration.ofSeconds(10))) {
            String key = newKey();
            AtomicInteger executions = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                answers.add(threads.submit(() -> {
                    start.await();
                    Decision decision = engine.before(Requests.post("/orders", key, ORDER));
                    if (decision instanceof Decision.Proceed proceed) {
                        executions.incrementAndGet();
                        writeOrder(proceed.execution(), key);
                        Thread.sleep(50);
                        proceed.execution().finish(Requests.created("{\"order\":1}"));
                        return 201;
                    }
                    Decision.Respond respond = (Decision.Respond) decision;
                    return respond.isReplay() ? 200 : respond.reply().status();
                }));
            }
            start.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get(30, TimeUnit.SECONDS));
            }

            assertThat(executions.get()).isEqualTo(1);
            assertThat(orders(key)).isEqualTo(1);
            assertThat(statuses).as("one ran, the others waited and replayed").containsOnly(201, 200)
                    .filteredOn(s -> s == 201).hasSize(1);
        }
    }

    @Test
    void theHandlerGetsTheTransactionAsJdbcAndJooqButCannotEndIt() throws Exception {
        try (IdempotencyEngine engine = engine(Duration.ZERO)) {
            String key = newKey();
            Execution execution = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            AtomicTransaction tx = execution.unwrap(AtomicTransaction.class).orElseThrow();
            assertThat(execution.unwrap(Connection.class)).containsSame(tx.connection());
            assertThat(execution.unwrap(DSLContext.class)).containsSame(tx.dsl());
            assertThat(execution.unwrap(DataSource.class)).as("the pool the connection came from").containsSame(pool);
            assertThat(tx.dialect()).isEqualTo(store.dialect());

            DSLContext dsl = tx.dsl();
            dsl.insertInto(table("business_orders"), field("order_key"), field("item")).values(key, "pen").execute();
            assertThatThrownBy(() -> dsl.transaction(nested -> {
                nested.dsl().insertInto(table("business_orders"), field("order_key"), field("item"))
                        .values(key + "-nested", "pen").execute();
                throw new IllegalStateException("nested block fails");
            })).hasMessageContaining("nested block fails");
            assertThatThrownBy(() -> tx.connection().commit()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> tx.connection().rollback()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> tx.connection().setAutoCommit(true)).isInstanceOf(IllegalStateException.class);
            tx.connection().close(); // harmless

            execution.finish(Requests.created("{\"order\":1}"));

            assertThat(orders(key)).isEqualTo(1);
            assertThat(orders(key + "-nested")).as("the savepoint was rolled back").isZero();
            assertThat(execution.unwrap(Connection.class)).as("nothing to hand out once finished").isEmpty();
            assertThatThrownBy(() -> tx.connection().prepareStatement("SELECT 1"))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("finished");
        }
    }

    @Test
    void theConnectionGoesBackToThePoolAsItWasLent() throws Exception {
        HikariDataSource single = db.pool("atomic-single", 1);
        JdbcStore singleStore = JdbcStore.create(single);
        String before = sessionState(single);
        try (IdempotencyEngine engine = new IdempotencyEngine(singleStore,
                IdempotencyConfig.builder().mode(Mode.ATOMIC).inFlightWait(Duration.ofMillis(700)).build())) {
            String key = newKey();
            Execution stored = proceed(engine.before(Requests.post("/orders", key, ORDER)));
            writeOrder(stored, key);
            stored.finish(Requests.created("{\"order\":1}"));
            assertThat(sessionState(single)).isEqualTo(before);

            assertThat(respond(engine.before(Requests.post("/orders", key, ORDER))).isReplay()).isTrue();
            assertThat(sessionState(single)).as("after a replay").isEqualTo(before);

            Execution failed = proceed(engine.before(Requests.post("/orders", newKey(), ORDER)));
            failed.fail(new IllegalStateException("boom"));
            assertThat(sessionState(single)).as("after a rollback").isEqualTo(before);

            Execution released = proceed(engine.before(Requests.post("/orders", newKey(), ORDER)));
            released.finish(CapturedResponse.of(500, Map.of(), new byte[0]));
            assertThat(sessionState(single)).as("after a release").isEqualTo(before);
        }
        try (IdempotencyEngine engine = new IdempotencyEngine(singleStore,
                IdempotencyConfig.builder().mode(Mode.ATOMIC).inFlightWait(Duration.ZERO).build());
             IdempotencyEngine holders = engine(Duration.ZERO)) {
            String key = newKey();
            Execution holder = proceed(holders.before(Requests.post("/orders", key, ORDER))); // on the other pool
            writeOrder(holder, key);
            try {
                assertThat(answer(respond(engine.before(Requests.post("/orders", key, OTHER_ORDER))))).isEqualTo(CONFLICT);
                assertThat(answer(respond(engine.before(Requests.post("/orders", key, ORDER))))).isEqualTo(IN_PROGRESS);
                assertThat(sessionState(single)).as("after lock timeouts and their probes").isEqualTo(before);
                assertThat(orders(single, key)).as("no dirty read left pending for the next borrower").isZero();
            } finally {
                holder.finish(Requests.created("{\"order\":1}"));
            }
        }
        assertThat(single.getHikariPoolMXBean().getActiveConnections()).isZero();
    }

    /** Autocommit, isolation and the lock wait of the pool's one connection. */
    String sessionState(HikariDataSource single) throws SQLException {
        try (Connection c = single.getConnection()) {
            String lockWait = switch (db.kind) {
                case POSTGRES -> query(c, "SHOW lock_timeout") + "/" + query(c, "SHOW idle_in_transaction_session_timeout");
                case MARIADB -> query(c, "SELECT @@session.innodb_lock_wait_timeout");
                case H2 -> query(c, "SELECT LOCK_TIMEOUT()");
            };
            return "autocommit=" + c.getAutoCommit() + " isolation=" + c.getTransactionIsolation() + " lock=" + lockWait;
        }
    }

    static String query(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The store's statements on a connection of the test's own, as the store runs them. */
    static JdbcSession session(Connection c, SQLDialect dialect) {
        return new JdbcSession.Sessions(null, SqlCatalog.of(Dialects.sqlDialect(dialect), JdbcStore.DEFAULT_TABLE),
                dialect, 0, dialect == SQLDialect.MARIADB).on(c);
    }

    /** The reserve mode's reservation of {@code row} on {@code s} until it settles. */
    static SqlReserve.Found reserve(JdbcSession s, NewRow row, Instant now, boolean asynchronousCommit)
            throws SQLException {
        Map<String, Object> values = Records.rowValues(row, now);
        return JdbcSession.join(SqlReserve.reserve(s.dialect(), row.key(), row.ownerToken(), now,
                (name, mapping) -> s.reserve(name, values, mapping, asynchronousCommit)));
    }
}
