package dev.idempotency.bench.proposed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.BodyCanonicalizer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The prototype must produce exactly the shipped canonicalizers' bytes, or its numbers mean nothing. */
class ByteParsingCanonicalizerTest {

    private static final List<String> BODIES = List.of(
            "{\"b\":2,\"a\":1}", "{ \"b\" : [3, 2.50, 1e2, -0, 0.1, 1E21, 5e-7] , \"a\": {\"z\":null,\"y\":true}}",
            "[\"\\u00e9\\u20ac\\ud83d\\ude00\", \"tab\\tquote\\\"back\\\\slash\\u0001\", \"é€😀\"]",
            "{\"\\u20ac\":1,\"\\ud83d\\ude00\":2,\"\\ufb33\":3,\"a\":4,\"\\u0080\":5}",
            "{\"dup\":1,\"dup\":2}", "{\"lone\":\"\\ud800\"}", "123456789012345678901234567890", "\"text\"",
            "{\"a\":1} {\"b\":2}", "{\"a\":", "", "not json", "{\"big\":1.7976931348623157e308,\"tiny\":5e-324}",
            "\uFEFF{\"bom\":1}", "{\"deep\":[[[[[[[[[[1]]]]]]]]]]}", "{\"n\":NaN}");

    @Test
    void producesTheShippedBytesForSortedJsonAndJcs() {
        List<byte[]> bodies = new ArrayList<>();
        BODIES.forEach(b -> bodies.add(b.getBytes(StandardCharsets.UTF_8)));
        bodies.add(new byte[] {'"', (byte) 0xC3, '"'});                     // truncated sequence
        bodies.add(new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}); // encoded surrogate
        bodies.add(new byte[] {'"', (byte) 0xC0, (byte) 0xAF, '"'});       // overlong
        bodies.add(new byte[] {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}); // above U+10FFFF
        Random random = new Random(42);
        for (int i = 0; i < 300; i++) {
            bodies.add(randomJson(random).getBytes(StandardCharsets.UTF_8));
        }
        for (byte[] body : bodies) {
            for (String type : new String[] {"application/json", null, "text/plain"}) {
                assertThat(ByteParsingCanonicalizer.SORTED_JSON.canonicalize(body, type))
                        .as(new String(body, StandardCharsets.UTF_8))
                        .isEqualTo(BodyCanonicalizer.sortedJson().canonicalize(body, type));
                assertThat(ByteParsingCanonicalizer.JCS.canonicalize(body, type))
                        .as(new String(body, StandardCharsets.UTF_8))
                        .isEqualTo(BodyCanonicalizer.jcs().canonicalize(body, type));
            }
        }
    }

    @Test
    void writesShortNumberLiteralsAsTheLongWayWould() {
        List<String> literals = new ArrayList<>(List.of("0", "-0", "0.0", "-0.000", "1", "-1", "10", "100", "1.50",
                "19.99", "20.990", "0.1", "0.000001", "0.0000012", "0.0000001", "123456789012345",
                "1234567890123456", "12345678901234.5", "1234567890123.45", "0.123456789012345",
                "0.1234567890123456", "999999999999999", "999999999999999.9", "1e2", "1.5E-3", "-12.3400",
                "100000000000000", "1000000000000000"));
        Random random = new Random(3);
        for (int i = 0; i < 5_000; i++) {
            StringBuilder s = new StringBuilder(random.nextBoolean() ? "-" : "");
            s.append(random.nextInt(10) == 0 ? "0" : Long.toString(1 + (random.nextLong() >>> (1 + random.nextInt(63)))));
            if (random.nextBoolean()) {
                s.append('.');
                for (int d = random.nextInt(18) + 1; d > 0; d--) {
                    s.append((char) ('0' + (random.nextInt(3) == 0 ? 0 : random.nextInt(10))));
                }
            }
            literals.add(s.toString());
        }
        for (String literal : literals) {
            byte[] body = ("[" + literal + "]").getBytes(StandardCharsets.UTF_8);
            assertThat(ByteParsingCanonicalizer.SORTED_JSON.canonicalize(body, null)).as(literal)
                    .isEqualTo(BodyCanonicalizer.sortedJson().canonicalize(body, null));
        }
    }

    @Test
    void validatesUtf8LikeJavasStrictDecoder() {
        Random random = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            byte[] bytes = new byte[random.nextInt(6)];
            random.nextBytes(bytes);
            boolean strict;
            try {
                StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
                strict = true;
            } catch (java.nio.charset.CharacterCodingException e) {
                strict = false;
            }
            assertThat(ByteParsingCanonicalizer.isWellFormedUtf8(bytes)).as(java.util.Arrays.toString(bytes))
                    .isEqualTo(strict);
        }
    }

    private static String randomJson(Random r) {
        return value(r, 0);
    }

    private static String value(Random r, int depth) {
        int kind = depth > 3 ? r.nextInt(4) : r.nextInt(6);
        switch (kind) {
            case 0:
                return Double.toString((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20));
            case 1:
                return Long.toString(r.nextLong() >> r.nextInt(64));
            case 2:
                StringBuilder s = new StringBuilder("\"");
                for (int i = r.nextInt(8); i > 0; i--) {
                    s.append(new String[] {"a", "é", "€", "😀", "\\n", "\\u0007", "\\\"", "Z", "\\u00e9"}[r.nextInt(9)]);
                }
                return s.append('"').toString();
            case 3:
                return new String[] {"true", "false", "null"}[r.nextInt(3)];
            case 4:
                StringBuilder a = new StringBuilder("[");
                for (int i = r.nextInt(4); i > 0; i--) {
                    a.append(value(r, depth + 1)).append(i > 1 ? "," : "");
                }
                return a.append(']').toString();
            default:
                StringBuilder o = new StringBuilder("{");
                for (int i = r.nextInt(4); i > 0; i--) {
                    o.append(value(r, 99).replaceAll("^[^\"].*", "\"k" + r.nextInt(5) + "\"").replaceAll("^\"", "\"k"))
                            .append(':').append(value(r, depth + 1)).append(i > 1 ? "," : "");
                }
                return o.append('}').toString();
        }
    }
}
