package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.Mode;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table lock on {@code idempotency_keys} — what a migration, {@code LOCK TABLE … IN SHARE MODE}
 * or {@code VACUUM FULL} takes — held for four seconds while fresh keys keep arriving: no fresh
 * key is ever answered {@code 409}, every request is answered within the store's statement timeout
 * plus one second, and the ones that could not get through are {@code 503} "busy" with
 * {@code Retry-After}.
 */
class PostgresTableLockTest {

    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration BOUND = STATEMENT_TIMEOUT.plusSeconds(1);
    private static final long LOCK_MILLIS = 4_000;
    private static final int CLIENTS = 4;

    private static TestDatabase db;

    @BeforeAll
    static void createSchema() {
        db = TestDatabase.postgres();
        JdbcStore.create(db.pool("lock-setup", 1)).createTableIfMissing();
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    /** One request's answer and how long it took, from {@code before} to the reply. */
    private record Answer(int status, String detail, boolean retryAfter, long millis, boolean duringLock) {
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"RESERVE", "ATOMIC"})
    void aTableLockUnderLoadIsAnswered503BusyWithinTheTimeoutNeverAs409(Mode mode) throws Exception {
        JdbcStore store = JdbcStore.builder(db.pool("lock-" + mode, CLIENTS + 2))
                .statementTimeout(STATEMENT_TIMEOUT).build();
        Map<IdempotencyEvent.Outcome, Integer> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        IdempotencyConfig config = IdempotencyConfig.builder().mode(mode).renewLease(false)
                .listener(event -> outcomes.merge(event.outcome(), 1, Integer::sum)).build();
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        AtomicBoolean locked = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try (IdempotencyEngine engine = new IdempotencyEngine(store, config);
             Connection locker = db.pool("locker-" + mode, 1).getConnection()) {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                running.add(clients.submit(() -> {
                    while (!stop.get()) {
                        answers.add(send(engine, locked.get()));
                    }
                    return null;
                }));
            }
            Thread.sleep(500); // the load runs before the lock, too
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.execute("LOCK TABLE idempotency_keys IN SHARE MODE");
            }
            locked.set(true);
            Thread.sleep(LOCK_MILLIS); // the scenario: a lock held this long
            locked.set(false);
            locker.rollback();
            Thread.sleep(1_000); // and after it
            stop.set(true);
            for (Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }

        Map<String, Integer> byAnswer = new TreeMap<>();
        answers.forEach(a -> byAnswer.merge(a.status() + (a.detail().isEmpty() ? "" : " " + a.detail()), 1,
                Integer::sum));
        long slowest = answers.stream().mapToLong(Answer::millis).max().orElse(0);
        System.out.printf("table lock %s: %d answers %s, slowest %d ms; outcomes %s%n", mode, answers.size(), byAnswer,
                slowest, new TreeMap<>(outcomes));

        assertThat(answers).as("fresh keys are never answered in flight")
                .noneMatch(a -> a.status() == 409);
        assertThat(answers).as("every answer within the statement timeout plus one second")
                .allMatch(a -> a.millis() <= BOUND.toMillis(), "took at most " + BOUND.toMillis() + " ms");
        assertThat(answers).as("only the handler's 201 or 503 busy")
                .allMatch(a -> a.status() == 201 || a.status() == 503 && a.detail().contains("busy") && a.retryAfter());
        assertThat(answers.stream().filter(a -> a.status() == 503))
                .as("the lock held requests up (else this test proves nothing)").isNotEmpty();
        assertThat(answers.stream().filter(a -> a.duringLock() && a.status() == 503)).isNotEmpty();
        assertThat(answers.stream().filter(a -> a.status() == 201).count()).as("served before and after the lock")
                .isGreaterThan(10);
    }

    private static Answer send(IdempotencyEngine engine, boolean duringLock) {
        long start = System.nanoTime();
        Decision decision = engine.before(Requests.post("/orders", "lock-" + UUID.randomUUID(), "{\"n\":1}"));
        Optional<HttpReply> reply;
        if (decision instanceof Decision.Proceed proceed) {
            reply = proceed.execution().finish(Requests.created("{\"order\":1}"));
        } else {
            reply = Optional.of(((Decision.Respond) decision).reply());
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        return reply.map(r -> new Answer(r.status(), detail(r), r.header("Retry-After") != null, millis, duringLock))
                .orElseGet(() -> new Answer(201, "", false, millis, duringLock));
    }

    private static String detail(HttpReply reply) {
        String body = new String(reply.body(), StandardCharsets.UTF_8);
        int at = body.indexOf("\"detail\":\"");
        return at < 0 ? body : body.substring(at + 10, body.indexOf('"', at + 10));
    }
}
