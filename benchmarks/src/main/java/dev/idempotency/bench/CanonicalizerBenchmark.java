package dev.idempotency.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.BodyCanonicalizer;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Canonicalize + SHA-256 for both canonicalizers, beside Jackson's plain tree parse of the same
 * bytes (the yardstick: a canonicalizer has to parse at least once). MB/s = ops/s × size. The
 * digest is cloned from a prototype per operation, as the engine's fingerprint does.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class CanonicalizerBenchmark {

    @Param({"1024", "65536", "1048576"})
    public int size;

    private byte[] body;
    private final ObjectMapper mapper = new ObjectMapper();
    private final BodyCanonicalizer sorted = BodyCanonicalizer.sortedJson();
    private final BodyCanonicalizer jcs = BodyCanonicalizer.jcs();
    private MessageDigest sha256;

    @Setup
    public void setUp() throws Exception {
        body = Bodies.json(size);
        sha256 = MessageDigest.getInstance("SHA-256");
    }

    @Benchmark
    public JsonNode jacksonTreeParse() throws IOException {
        return mapper.readTree(body);
    }

    @Benchmark
    public byte[] sortedJsonAndSha256() throws Exception {
        return ((MessageDigest) sha256.clone()).digest(sorted.canonicalize(body, "application/json"));
    }

    @Benchmark
    public byte[] jcsAndSha256() throws Exception {
        return ((MessageDigest) sha256.clone()).digest(jcs.canonicalize(body, "application/json"));
    }
}
