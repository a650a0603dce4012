package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever a client sends as key and body, the engine answers with a documented decision: a
 * 4xx problem or a run of the handler — never an exception — and a rejected request leaves
 * nothing stored.
 */
class BadInputPropertiesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> DOCUMENTED_CODES = Set.of("idempotency_key_invalid", "idempotency_key_conflict",
            "idempotency_request_in_progress", "idempotency_request_too_large");

    private final InMemoryStore store = new InMemoryStore();
    private final IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.builder()
            .clock(new MutableClock(Instant.parse("2030-01-01T00:00:00Z")))
            .renewLease(false)
            .maxRequestBodyBytes(64 * 1024)
            .ttl(Duration.ofHours(1))
            .build());

    @Property(tries = 400)
    void anyKeyHeadersAndBodyGetADocumentedAnswer(@ForAll("keyHeaders") List<String> keyHeaders,
                                                  @ForAll("bodies") byte[] body) throws Exception {
        int before = store.size();
        RequestView request = RequestView.of("POST", "/orders",
                Map.of("Idempotency-Key", keyHeaders, "Content-Type", List.of("application/json")), body);

        Decision decision = engine.before(request);

        if (decision instanceof Decision.Respond respond) {
            HttpReply reply = respond.reply();
            JsonNode problem = JSON.readTree(reply.body());
            assertThat(reply.status()).isBetween(400, 499);
            assertThat(problem.path("code").asText()).isIn(DOCUMENTED_CODES);
            if (problem.path("code").asText().equals("idempotency_key_invalid")
                    || problem.path("code").asText().equals("idempotency_request_too_large")) {
                assertThat(store.size()).as("a rejected request stores nothing").isEqualTo(before);
            }
        } else if (decision instanceof Decision.Proceed proceed) {
            assertThat(keyHeaders).hasSize(1);
            proceed.execution().finish(CapturedResponse.of(400, Map.of(), new byte[0]));
            assertThat(store.size()).as("a non-2xx response is not stored").isEqualTo(before);
        } else {
            assertThat(keyHeaders).isEmpty();
        }
    }

    @Provide
    Arbitrary<List<String>> keyHeaders() {
        Arbitrary<String> anyChars = Arbitraries.strings().all().ofMinLength(0).ofMaxLength(300);
        Arbitrary<String> visible = Arbitraries.strings().withCharRange('!', '~').ofMinLength(0).ofMaxLength(300);
        Arbitrary<String> quoted = Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(270)
                .map(s -> "\"" + s + (s.length() % 3 == 0 ? "" : "\""));
        Arbitrary<String> one = Arbitraries.oneOf(anyChars, visible, quoted);
        return Arbitraries.oneOf(
                one.list().ofSize(1),
                one.list().ofMinSize(2).ofMaxSize(3),
                Arbitraries.just(List.of()));
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        Arbitrary<byte[]> randomBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(512);
        Arbitrary<byte[]> deep = Arbitraries.integers().between(1, 5000)
                .map(n -> ("[".repeat(n) + "]".repeat(n)).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> hugeNumbers = Arbitraries.integers().between(1, 2000)
                .map(n -> ("{\"n\":1" + "0".repeat(n) + ",\"e\":1e" + n + "}").getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> duplicateKeys = Combinators.combine(Arbitraries.integers(), Arbitraries.integers())
                .as((a, b) -> ("{\"a\":" + a + ",\"a\":" + b + "}").getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> invalidJson = Arbitraries.of("{", "}", "{\"a\":}", "[1,]", "nul", "\"\\ud800\"", "{\"a\":1}x",
                "\uFEFF{}").map(s -> s.getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> tooLarge = Arbitraries.just(new byte[64 * 1024 + 1]);
        return Arbitraries.oneOf(randomBytes, deep, hugeNumbers, duplicateKeys, invalidJson, tooLarge);
    }

    @Property(tries = 200)
    void keysThatAreValidAlwaysRoundTrip(@ForAll("validKeys") String key) {
        List<String> header = new ArrayList<>();
        header.add(key);
        Decision decision = engine.before(RequestView.of("POST", "/p", Map.of("Idempotency-Key", header), new byte[0]));
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        ((Decision.Proceed) decision).execution().fail(new RuntimeException("released"));
    }

    @Provide
    Arbitrary<String> validKeys() {
        // token characters, ':', '/' and '=': visible ASCII without the other delimiters
        char[] bareChars = IntStream.rangeClosed('!', '~')
                .filter(c -> "\"(),;<>?@[\\]{}".indexOf(c) < 0)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                .toString().toCharArray();
        Arbitrary<String> bare = Arbitraries.strings().withChars(bareChars).ofMinLength(1).ofMaxLength(255);
        Arbitrary<String> quoted = Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255)
                .map(s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        return Arbitraries.oneOf(bare, quoted);
    }
}
