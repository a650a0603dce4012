package dev.idempotency.examples;

import dev.idempotency.core.Mode;
import java.time.Duration;

/**
 * The sizes and timeouts of the example's connection pool, for {@link ExampleDatabase}'s HikariCP
 * pool and for a pool the framework owns (the Quarkus example's Agroal data source), so that every
 * example holds as many connections and gives up on a dead database as soon.
 *
 * @param maxSize            the most connections open
 * @param minIdle            connections kept open while idle
 * @param acquisitionTimeout how long a request waits for a connection before its 503
 * @param validationTimeout  how long checking a borrowed connection may take
 */
public record ExamplePool(int maxSize, int minIdle, Duration acquisitionTimeout, Duration validationTimeout) {

    /**
     * Connections for the reserve and optimistic modes and without idempotency: as many as the
     * requests a service typically works on at once (the benchmark sends 16). A request borrows a
     * connection per statement — three times in the reserve mode — and when borrowers outnumber
     * the connections HikariCP hands a returned one over by spinning ({@code Thread.yield} in
     * {@code ConcurrentBag.requite}) and wakes its connection-adder thread for every wait.
     */
    static final int POOL_SIZE = 16;
    /** Connections kept open while idle, in every mode. */
    static final int MIN_IDLE = 10;
    /**
     * Connections kept open while idle in the atomic mode when another pool holds its transactions
     * (the Vert.x example's PgStore, up to 40 connections of its own): this pool then serves only
     * the requests without a key and the reads. With {@link #MIN_IDLE} two such services after a
     * burst of duplicates held 2 × (40 + 10) connections, PostgreSQL's default
     * {@code max_connections} of 100, and the server refused further clients
     * (example-reliability's {@code TwoInstancesTest}).
     */
    static final int MIN_IDLE_BESIDE_ATOMIC_POOL = 2;
    /** Connections in the atomic mode: up to this many keyed requests in flight, with room to spare. */
    static final int ATOMIC_POOL_SIZE = 40;

    /**
     * The pool for {@code settings}.
     *
     * @param transactionsHere whether the atomic mode's transactions are on this pool (the JDBC store); with
     *                         another store (PgStore's own pool) this one serves single statements only
     */
    public static ExamplePool of(ExampleSettings settings, boolean transactionsHere) {
        boolean atomic = settings.mode() == Mode.ATOMIC && settings.idempotencyEnabled();
        // In the atomic mode every request in flight holds a connection (its transaction) until it
        // is answered; the other modes borrow one per statement.
        boolean oneConnectionPerRequest = transactionsHere && atomic;
        return new ExamplePool(oneConnectionPerRequest ? ATOMIC_POOL_SIZE : POOL_SIZE,
                // Opened on demand beyond the usual ten, so an idle service does not sit on 16 or 40
                // of the server's connections.
                !transactionsHere && atomic ? MIN_IDLE_BESIDE_ATOMIC_POOL : MIN_IDLE,
                // Fail fast when the database is gone: a request must get its 503 within two seconds,
                // not after a pool's default 5 or 30 s. In the atomic mode a request takes one
                // connection and keeps it (its write and its rollback use the same one), so it waits at
                // most once; in the other modes it may wait up to three times (reservation, its own
                // write, the release after that write failed).
                Duration.ofMillis(oneConnectionPerRequest ? 1_500 : 600),
                Duration.ofMillis(250));
    }
}
