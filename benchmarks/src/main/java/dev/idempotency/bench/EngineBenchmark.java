package dev.idempotency.bench;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.InMemoryStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The engine's own cost per request with the in-memory store and a 1 KB JSON body: a new key
 * (fingerprint, reserve, complete with a 200-byte response) and a replay (fingerprint, reserve
 * loses, replay built) — with the default canonicalizer and with {@code rawBytes()} (no
 * canonicalization: what the engine costs besides parsing the body).
 *
 * <p>The store is emptied every {@value #FORGET_EVERY} new keys: otherwise every record of the
 * iteration stays reachable, and the collector's cost of copying an ever larger live set — not the
 * engine's — ends up in the score.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class EngineBenchmark {

    private static final byte[] BODY = Bodies.json(1024);
    private static final CapturedResponse RESPONSE = CapturedResponse.of(201,
            Map.of("Content-Type", List.of("application/json"), "Location", List.of("/orders/42")),
            ("{\"id\":42,\"item\":\"book\",\"quantity\":2,\"status\":\"created\",\"padding\":\""
                    + "x".repeat(130) + "\"}").getBytes(StandardCharsets.UTF_8));

    private static final int FORGET_EVERY = 4096;
    private static final Instant END_OF_TIME = Instant.parse("9999-12-31T23:59:59Z");

    @Param({"sortedJson", "rawBytes"})
    public String canonicalizer;

    private InMemoryStore store;
    private IdempotencyEngine engine;
    private long counter;

    @Setup(Level.Iteration)
    public void setUp() {
        BodyCanonicalizer c = switch (canonicalizer) {
            case "sortedJson" -> BodyCanonicalizer.sortedJson();
            case "rawBytes" -> BodyCanonicalizer.rawBytes();
            default -> throw new IllegalArgumentException(canonicalizer);
        };
        // No lease renewal thread in the way.
        store = new InMemoryStore();
        engine = new IdempotencyEngine(store, IdempotencyConfig.builder().renewLease(false).canonicalizer(c).build());
        Decision warm = engine.before(request("replay-key"));
        ((Decision.Proceed) warm).execution().finish(RESPONSE);
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
        engine.close();
    }

    private static RequestView request(String key) {
        return RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(key),
                "Content-Type", List.of("application/json")), BODY);
    }

    @Benchmark
    public Object newKey() {
        if (++counter % FORGET_EVERY == 0) {
            store.purgeExpired(END_OF_TIME, FORGET_EVERY); // every record so far: a bounded live set
        }
        Decision decision = engine.before(request("key-" + counter));
        return ((Decision.Proceed) decision).execution().finish(RESPONSE);
    }

    @Benchmark
    public Object replay() {
        return ((Decision.Respond) engine.before(request("replay-key"))).reply();
    }
}
