package dev.idempotency.testkit;

import dev.idempotency.testkit.internal.RawHttp;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Clients as real ones behave, against a running service serving {@link ConformanceApp}'s routes: a
 * lost client is not a failed request. A client that disconnects while its handler runs, a handler
 * the framework cancels, a server-side timeout: none of them may let the handler run a second time
 * for the key. Every retry is answered 409 (the key stays in flight while the work may run) or with
 * a replay; where the adapter still sees the handler's answer, it is stored and replayed. And what
 * the client saw decides: a 2xx made by the framework's exception mapping is stored like any 2xx.
 *
 * <p>Judged by {@link ConformanceApp}'s counters: how often a handler ran and how often its work
 * finished. Waits are on those counters, with generous deadlines; nothing depends on a sleep.
 */
public final class HostileClientChecks {

    /** The server-side timeout an adapter's test puts on {@code POST /timeout}. */
    public static final Duration SERVER_TIMEOUT = Duration.ofSeconds(1);

    private static final String BODY = "{\"item\":\"book\",\"quantity\":2}";
    /**
     * How long a disconnected or timed-out handler works on at most: retries are sent meanwhile, and
     * once {@link #OVERLAPPING} of them were answered while it ran, its wait is ended.
     */
    private static final long HANDLER_MS = 3_000;
    /** How many retries must be answered while the first still runs before its wait may end. */
    private static final int OVERLAPPING = 3;
    /** Far longer than the handler, far shorter than the lease (30 s). */
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    /** After the work finished, how long retries may still get 409 when the adapter abandoned the key. */
    private static final Duration SETTLE = Duration.ofSeconds(2);

    private final URI base;
    private final ConformanceApp app;

    public HostileClientChecks(URI base, ConformanceApp app) {
        this.base = base;
        this.app = app;
    }

    /**
     * A client closes its connection while {@code POST /orders} runs, then retries with the same key
     * and body: 409 while the first runs, then a replay of what the handler answered; one run. Where
     * the framework {@code cancels} the handler at the disconnect, the adapter no longer sees its
     * answer: 409 may go on after it finished (until the lease ends), but never a second run.
     */
    public void disconnectDuringTheHandler(boolean cancels) throws Exception {
        disconnectThenRetry("/orders", "orders", !cancels);
    }

    /**
     * The same on {@code POST /async}: a framework may cancel the handler's future or subscription at
     * the disconnect. Then the adapter abandons the key (it stays in flight until its lease ends) —
     * retries get 409 or a replay, never a second run.
     */
    public void disconnectFromAnAsynchronousHandler() throws Exception {
        disconnectThenRetry("/async", "async", false);
    }

    /**
     * {@code POST /timeout} outlives the server's own timeout: the client gets the framework's
     * timeout answer ({@code status}); retries get 409 while the work runs, and 409 or a replay after
     * it: never a second run.
     */
    public void serverSideTimeout(int status) throws Exception {
        Transcript t = new Transcript("timeout");
        String key = newKey();
        String target = "/timeout?delayMs=" + (HANDLER_MS + SERVER_TIMEOUT.toMillis());
        RawResponse first = post(target, key);
        t.note("first (timed out)", first);
        t.check(first.status() == status && !first.replayed(), "the first request should get the server's "
                + "timeout answer " + status + ", got " + first);
        t.check(app.finished("timeout") == t.finishedBefore, "the handler finished before the server's timeout"
                + " fired: the check cannot judge on a machine this slow");
        t.retryWhileRunning(key, target, true);
        t.retryAfterFinished(key, target, false);
    }

    /**
     * {@code POST /mapped} throws, and the framework's exception mapping answers 201: stored like any
     * 2xx, so the retry replays it byte for byte, with its {@code Location}; one run.
     */
    public void exceptionMappedToA2xx() throws Exception {
        Transcript t = new Transcript("mapped");
        String key = newKey();
        RawResponse first = post("/mapped", key);
        t.note("first", first);
        RawResponse retry = post("/mapped", key);
        t.note("retry", retry);
        t.check(first.status() == 201 && !first.replayed(), "the mapped exception should be answered 201");
        t.check(retry.status() == 201 && retry.replayed(), "the retry should be a replay of the mapped 201");
        t.check(Arrays.equals(retry.body(), first.body())
                && retry.header("Location").equals(first.header("Location")), "the replay should carry the"
                + " mapped answer's body and Location");
        t.runsOnce();
    }

    private void disconnectThenRetry(String path, String route, boolean mustReplay) throws Exception {
        Transcript t = new Transcript(route);
        String key = newKey();
        String target = path + "?delayMs=" + HANDLER_MS;
        try (Socket ignored = RawHttp.sendAndHold(base, target, key, BODY)) {
            t.awaitStarted();
        } // closed while the handler runs: the client has gone
        t.retryWhileRunning(key, target, mustReplay);
        t.retryAfterFinished(key, target, mustReplay);
    }

    private RawResponse post(String target, String key) throws IOException {
        return RawHttp.post(base, target, key, BODY);
    }

    private static String newKey() {
        return "hostile-" + UUID.randomUUID();
    }

    /** One check's requests on one route, their answers, and a failure message showing them all. */
    private final class Transcript {
        private final String route;
        private final int runsBefore;
        private final int finishedBefore;
        private final List<String> lines = new ArrayList<>();

        Transcript(String route) {
            this.route = route;
            this.runsBefore = app.executions(route);
            this.finishedBefore = app.finished(route);
        }

        void note(String label, RawResponse response) {
            lines.add(label + " -> " + response + " (handler runs: " + (app.executions(route) - runsBefore) + ")");
        }

        void check(boolean holds, String what) {
            if (!holds) {
                throw new AssertionError("POST /" + route + ": " + what + "\n  requests:\n    "
                        + String.join("\n    ", lines));
            }
        }

        void awaitStarted() throws InterruptedException {
            await(() -> app.executions(route) > runsBefore, "the handler never started");
        }

        /**
         * Retries, one after another, until the work finished (or was cancelled): each is 409 and none
         * runs the handler. At least one overlaps the work when it {@code cannotEndEarly}; the work's
         * wait ends once {@link #OVERLAPPING} did.
         */
        void retryWhileRunning(String key, String target, boolean cannotEndEarly) throws Exception {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            int whileRunning = 0;
            while (app.finished(route) == finishedBefore) {
                check(System.nanoTime() < deadline, "the handler did not finish within " + PATIENCE);
                RawResponse retry = post(target, key);
                boolean running = app.finished(route) == finishedBefore; // until its answer came
                note(running ? "retry while the first runs" : "retry as the first finished", retry);
                runsOnce();
                check(retry.status() == 409 || (retry.status() == 201 && retry.replayed() && !running), "a retry"
                        + " while the first still runs should get 409, got " + retry);
                whileRunning += running ? 1 : 0;
                if (whileRunning == OVERLAPPING) {
                    app.endWaits(); // seen what the check needs while it ran: let the work finish
                }
                Thread.sleep(100);
            }
            check(whileRunning > 0 || !cannotEndEarly, "no retry was sent while the first ran: the check cannot"
                    + " judge on a machine this slow");
        }

        /**
         * Retries after the work finished: a replay of a 201, or (where the adapter abandoned the key and
         * {@code mustReplay} is false) 409 for as long as the lease lasts; never a second run.
         */
        void retryAfterFinished(String key, String target, boolean mustReplay) throws Exception {
            long deadline = System.nanoTime() + (mustReplay ? PATIENCE : SETTLE).toNanos();
            RawResponse retry;
            do {
                retry = post(target, key);
                note("retry after the first finished", retry);
                runsOnce();
                check(retry.status() == 409 || (retry.status() == 201 && retry.replayed()),
                        "a retry should be a replay of the first's 201 or 409, got " + retry);
                if (retry.replayed()) {
                    return;
                }
                Thread.sleep(100);
            } while (System.nanoTime() < deadline);
            check(!mustReplay, "the handler answered, yet its retry was never a replay of that answer");
        }

        void runsOnce() {
            check(app.executions(route) - runsBefore == 1, "the handler should run once for the key, it ran "
                    + (app.executions(route) - runsBefore) + " times");
        }

        private void await(BooleanSupplier condition, String failure) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!condition.getAsBoolean()) {
                check(System.nanoTime() < deadline, failure);
                Thread.sleep(10);
            }
        }
    }
}
