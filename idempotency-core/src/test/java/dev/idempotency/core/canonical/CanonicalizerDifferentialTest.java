package dev.idempotency.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.canonical.reference.ReferenceJcsCanonicalizer;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Holds the shipped canonicalizers to the bytes of the reference implementation
 * ({@link ReferenceJcsCanonicalizer}, the implementation they replaced) wherever their meaning did
 * not change: {@code jcs()} on every input; {@code sortedJson()} on every input without duplicate
 * member names whose number literals are already in their ECMAScript form — and, on all others, to
 * the reference after it ({@link #assertRefinesReference}). Inputs: fixed edge cases, random
 * documents, random corruptions of those documents (so that every way of being invalid is also
 * compared) and random number literals. Seeded, so a failure reproduces.
 */
class CanonicalizerDifferentialTest {

    private static final String[] CONTENT_TYPES = {"application/json", null, "text/plain"};
    private static final BodyCanonicalizer REFERENCE_SORTED = ReferenceJcsCanonicalizer.LAST_DUPLICATE_WINS;
    private static final BodyCanonicalizer REFERENCE_JCS = ReferenceJcsCanonicalizer.INSTANCE;
    private static final JsonFactory JSON = new JsonFactory();

    /** How many bodies {@code sortedJson()} was compared on byte for byte; a test can check it did. */
    private static int sortedComparisons;

    private static void assertSameAsReference(byte[] body) {
        boolean meaningUnchanged = meaningUnchanged(body);
        // the megabyte bodies of the limits tests: one JSON type is enough, the others cost seconds
        for (String type : body.length > 1_000_000 ? new String[] {"application/json"} : CONTENT_TYPES) {
            assertSame(JsonCanonicalizer.JCS, REFERENCE_JCS, body, type, "jcs");
            if (meaningUnchanged) {
                assertSame(JsonCanonicalizer.SORTED_JSON, REFERENCE_SORTED, body, type, "sortedJson");
                sortedComparisons++;
            } else {
                assertRefinesReference(body, type);
            }
        }
    }

    /** An unchanged body must come back as the same array, as the reference returns it. */
    private static void assertSame(BodyCanonicalizer actual, BodyCanonicalizer reference, byte[] body, String type,
                                   String name) {
        byte[] expected = reference.canonicalize(body, type);
        byte[] result = actual.canonicalize(body, type);
        String description = describe(body) + " as " + type + " (" + name + ")";
        if (expected == body) {
            assertThat(result).as("returned unchanged: %s", description).isSameAs(body);
        } else {
            assertThat(new String(result, UTF_8)).as(description).isEqualTo(new String(expected, UTF_8));
            assertThat(result).as(description).isEqualTo(expected);
        }
    }

    /**
     * What holds for every body, whatever its numbers and names: {@code sortedJson()} refuses
     * (returns raw) only what the reference refuses; the reference refuses more only for a number
     * beyond the range of doubles; where both take a body, {@code sortedJson()}'s form only
     * reorders and respells it — the reference reads it as it reads the body itself (the last of
     * duplicate names still last) — and is its own canonical form.
     */
    private static void assertRefinesReference(byte[] body, String type) {
        byte[] sorted = JsonCanonicalizer.SORTED_JSON.canonicalize(body, type);
        byte[] reference = REFERENCE_SORTED.canonicalize(body, type);
        String description = describe(body) + " as " + type + " (sortedJson, refining the reference)";
        if (sorted == body) {
            assertThat(reference).as("refused by the reference too: %s", description).isSameAs(body);
            return;
        }
        if (reference == body) {
            assertThat(hasNumberBeyondDoubles(body)).as("only a huge number lets sortedJson take %s", description)
                    .isTrue();
            return;
        }
        assertThat(new String(REFERENCE_SORTED.canonicalize(sorted, type), UTF_8)).as(description)
                .isEqualTo(new String(reference, UTF_8));
        assertThat(JsonCanonicalizer.SORTED_JSON.canonicalize(sorted, type)).as("idempotent: %s", description)
                .isEqualTo(sorted);
    }

    /**
     * Whether {@code sortedJson()} must still give the reference's bytes: no duplicate member
     * names (the strict reference takes the body where the lenient one does) and every number
     * literal already in its ECMAScript form — or a body neither takes.
     */
    static boolean meaningUnchanged(byte[] body) {
        if (REFERENCE_SORTED.canonicalize(body, null) == body) {
            return !hasNumberBeyondDoubles(body); // refused by the reference: must be refused as well
        }
        if (REFERENCE_JCS.canonicalize(body, null) == body) {
            return false; // duplicate names
        }
        // the reference's own parser: Jackson's char parser, over the (well-formed) text
        try (JsonParser parser = JSON.createParser(new String(body, UTF_8))) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token.isNumeric() && !isEcmaScriptForm(parser.getText())) {
                    return false;
                }
            }
        } catch (IOException cannotHappen) {
            throw new AssertionError("the reference took it", cannotHappen);
        }
        return true;
    }

    private static boolean isEcmaScriptForm(String literal) {
        byte[] array = ("[" + literal + "]").getBytes(UTF_8);
        byte[] canonical = REFERENCE_JCS.canonicalize(array, null);
        return canonical != array && Arrays.equals(canonical, array);
    }

    /** Whether a number in the body (as far as it parses) is infinite as a double: 1e400. */
    private static boolean hasNumberBeyondDoubles(byte[] body) {
        try (JsonParser parser = JSON.createParser(new String(body, UTF_8))) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token.isNumeric() && !Double.isFinite(parser.getDoubleValue())) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException invalid) {
            return false;
        }
        return false;
    }

    private static String describe(byte[] body) {
        if (body.length > 300) {
            return body.length + " bytes starting " + HexFormat.of().formatHex(body, 0, 60);
        }
        return new String(body, UTF_8) + " [" + HexFormat.of().formatHex(body) + "]";
    }

    private static void assertSameAsReference(String body) {
        assertSameAsReference(body.getBytes(UTF_8));
    }

    // --- fixed cases ---------------------------------------------------------------------------

    @Test
    void fixedDocuments() {
        List<String> bodies = List.of(
                "{\"b\":2,\"a\":1}", "{ \"b\" : [3, 2.50, 1e2, -0, 0.1, 1E21, 5e-7] , \"a\": {\"z\":null,\"y\":true}}",
                "[\"\\u00e9\\u20ac\\ud83d\\ude00\", \"tab\\tquote\\\"back\\\\slash\\u0001\", \"é€😀\"]",
                "{\"\\u20ac\":1,\"\\ud83d\\ude00\":2,\"\\ufb33\":3,\"a\":4,\"\\u0080\":5,\"\uE000\":6,\"\uFFFF\":7,"
                        + "\"\uD7FF\":8,\"\uD800\uDC00\":9,\"\uDBFF\uDFFF\":10}",
                "{\"\\\"\":1,\"#\":2,\"\\\\\":3,\"[\":4,\"\\n\":5,\"\\u001f\":6,\" \":7,\"\":8,\"\\/\":9,\"0\":10}",
                "{\"a\":1,\"\\u0061\":2}", "{\"ab\":1,\"a\":2,\"a\\u0000\":3}",
                "{\"dup\":1,\"dup\":2}", "{\"dup\":{\"x\":1},\"other\":0,\"dup\":[2]}", "{\"lone\":\"\\ud800\"}",
                "{\"a\":1,\"a\":2,\"a\":3,\"b\":0,\"a\":4}", "{\"z\":1,\"y\":{\"q\":1,\"q\":2},\"x\":3}",
                "123456789012345678901234567890", "\"text\"", "{\"a\":1} {\"b\":2}", "{\"a\":", "", "not json",
                "{\"big\":1.7976931348623157e308,\"tiny\":5e-324,\"over\":1.7976931348623159e308}",
                "\uFEFF{\"bom\":1}", "{\"bom\":\"\uFEFF\"}", "{\"deep\":[[[[[[[[[[1]]]]]]]]]]}", "{\"n\":NaN}",
                "[1.0, -0, -0.0, 1E2, 0.1, 1e21, 1e-7, 4.50, 2e-3, 1e-6, 123456789012345678901234567890,"
                        + " 9007199254740993, -5e-324, 9007199254740992, 9007199254740991, -9007199254740993]",
                "[0e0, 0E+0, -0e-0, 1e+2, 1E-2, 0.0000010, 0.00000099, 100e-2, 12.5e1, 1.5e300, 1e-400, 1e400]",
                "[01]", "[-01]", "[00]", "[1.]", "[.1]", "[-]", "[+1]", "[1e]", "[1e+]", "[1.e1]", "[--1]", "[1.1.1]",
                "[0x10]", "[1_000]", "[1 2]", "[1,,2]", "[,1]", "[1,]", "{,}", "{\"a\" 1}", "{\"a\":1,}", "{\"a\"}",
                "{1:2}", "{\"a\":1 \"b\":2}", "[true,false,null]", "[tru]", "[truex]", "[true1]", "[nulll]",
                "[True]", "true false", "truefalse", "1x", "1 ", " 1", "1\u0000", "[1]\u0000", "\t[\r\n1 ]\n",
                "[\"\\x\"]", "[\"\\u00G0\"]", "[\"\\u00\"]", "[\"\\\"]", "[\"\\'\"]", "[\"a\nb\"]", "[\"\u007f\"]",
                "[\"\\u0000\\u0008\\u0009\\u000a\\u000b\\u000c\\u000d\\u000e\\u001F\\u0020\\u0022\\u005C\\u002F\"]",
                "[\"\\uDBFF\\uDFFF\",\"\\uD800\\uDC00\",\"\\uD83D\\uDE00x\"]", "[\"\\uD83D\\u0041\"]",
                "[\"\\uDE00\\uD83D\"]", "[\"\\uD83D\"]", "[\"\\uD83D\\\\uDE00\"]", "[\"\\uD83D\\uD83D\\uDE00\"]",
                "[\"\\u2028\\u2029\\u00e9\\u00E9\\uffff\\ufeff\"]", "{\"a\":[]}", "{\"a\":{}}", "[[],{},[{}]]",
                "[1]]", "[1}", "{\"a\":1]", "]", "}", "[", "{", "\"", "\"\\", ",", ":", "[:]", "{\"a\"::1}",
                "/* c */1", "# c\n1", "[1]//", "'a'", "[NaN]", "[Infinity]", "[-Infinity]", "\u00a01",
                "[\"a\"\"b\"]", "{\"a\":\"b\"\"c\":1}");
        bodies.forEach(CanonicalizerDifferentialTest::assertSameAsReference);
    }

    @Test
    void illFormedUtf8() {
        byte[][] bodies = {
            {'"', (byte) 0xC3, '"'}, {'"', (byte) 0xC3, '(', '"'}, {'"', (byte) 0xC0, (byte) 0xAF, '"'},
            {'"', (byte) 0xC1, (byte) 0xBF, '"'}, {'"', (byte) 0xC2, (byte) 0x80, '"'},
            {'"', (byte) 0xE0, (byte) 0x9F, (byte) 0xBF, '"'}, {'"', (byte) 0xE0, (byte) 0xA0, (byte) 0x80, '"'},
            {'"', (byte) 0xED, (byte) 0x9F, (byte) 0xBF, '"'}, {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'},
            {'"', (byte) 0xEF, (byte) 0xBF, (byte) 0xBF, '"'}, {'"', (byte) 0xE2, (byte) 0x82, '"'},
            {'"', (byte) 0xF0, (byte) 0x8F, (byte) 0xBF, (byte) 0xBF, '"'},
            {'"', (byte) 0xF0, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'},
            {'"', (byte) 0xF4, (byte) 0x8F, (byte) 0xBF, (byte) 0xBF, '"'},
            {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'},
            {'"', (byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80, '"'},
            {'"', (byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80, '"'},
            {'"', (byte) 0x80, '"'}, {'"', (byte) 0xBF, '"'}, {'"', (byte) 0xFF, '"'},
            {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '1'}, {(byte) 0xC3, (byte) 0xA9},
            {'{', '"', (byte) 0xC3, (byte) 0xA9, '"', ':', '1', '}'}, {'{', '"', (byte) 0xC3, '"', ':', '1', '}'},
            {'[', '1', ']', ' ', (byte) 0xC3},
        };
        for (byte[] body : bodies) {
            assertSameAsReference(body);
        }
    }

    @Test
    void limitsOfNestingNumberNameAndStringLength() {
        for (int depth : new int[] {999, 1000, 1001}) {
            assertSameAsReference("[".repeat(depth) + "]".repeat(depth));
            assertSameAsReference("{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1));
            assertSameAsReference("[".repeat(depth - 1) + "{\"k\" : 1}" + "]".repeat(depth - 1));
        }
        assertSameAsReference("[".repeat(100_000) + "]".repeat(100_000));
        for (int digits : new int[] {999, 1000, 1001}) {
            assertSameAsReference("[1" + "0".repeat(digits - 1) + "]");
            assertSameAsReference("[0." + "0".repeat(digits - 2) + "1]");
            assertSameAsReference("[-0." + "0".repeat(digits - 2) + "1]");
            assertSameAsReference("[1." + "0".repeat(digits - 3) + "e5]");
            assertSameAsReference("[1e" + "0".repeat(digits - 2) + "5]");
            assertSameAsReference("[1E-" + "0".repeat(digits - 2) + "5]");
            // at the root a number can end the input, which Jackson counts differently
            assertSameAsReference("1." + "0".repeat(digits - 2) + "1");
            assertSameAsReference("0." + "0".repeat(digits - 2) + "1");
            assertSameAsReference("-1" + "0".repeat(digits - 1));
            assertSameAsReference("1" + "0".repeat(digits - 2) + "e1");
            assertSameAsReference("1" + "0".repeat(digits - 2) + "e1 ");
            assertSameAsReference("0" + "e" + "0".repeat(digits - 2) + "1");
            assertSameAsReference("0" + "e" + "0".repeat(digits - 1) + "1");
            assertSameAsReference("[0e" + "0".repeat(digits - 1) + "1]");
        }
        for (int length : new int[] {49_999, 50_000, 50_001}) {
            assertSameAsReference("{\"" + "k".repeat(length) + "\":1}");
            assertSameAsReference("{\"" + "é".repeat(length) + "\":1}");
            assertSameAsReference("{\"" + "\\u00e9".repeat(length) + "\":1}");
            assertSameAsReference("{\"" + "😀".repeat(length / 2) + (length % 2 == 0 ? "" : "x") + "\":1}");
            assertSameAsReference("{\"" + "€".repeat(length - 1) + "😀" + "\":1}");
        }
    }

    @Test
    void stringsAtTheLengthLimit() {
        int limit = 20_000_000;
        for (int length : new int[] {limit, limit + 1}) {
            assertSameAsReference("[\"" + "a".repeat(length) + "\"]");
        }
        assertSameAsReference("[\"" + "😀".repeat(limit / 2) + "\"]");
        assertSameAsReference("[\"" + "😀".repeat(limit / 2) + "a\"]");
    }

    @Test
    void largeObjectsAndNamesSharingLongPrefixes() {
        SplittableRandom random = new SplittableRandom(256);
        String[] alphabet = {"a", "b", "\\u0000", "é", "😀", "\uE000", "\"", "\\\\"};
        for (int members : new int[] {2, 9, 255, 256, 257, 600}) {
            for (String shared : new String[] {"", "prefix", "prefix_", "commonprefix_", "\\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"}) {
                StringBuilder object = new StringBuilder("{");
                for (int m = 0; m < members; m++) {
                    StringBuilder name = new StringBuilder(shared);
                    for (int c = random.nextInt(4); c > 0; c--) {
                        name.append(alphabet[random.nextInt(alphabet.length)]);
                    }
                    object.append(m == 0 ? "" : ",").append('"').append(name).append("\":").append(m);
                }
                assertSameAsReference(object.append('}').toString());
            }
        }
    }

    // --- random documents and their corruptions ------------------------------------------------

    @Test
    void randomDocuments() {
        SplittableRandom random = new SplittableRandom(8785);
        for (int i = 0; i < 600; i++) {
            assertSameAsReference(new RandomJson(random, false).document());
        }
    }

    @Test
    void randomDocumentsWhoseMeaningDidNotChange() {
        SplittableRandom random = new SplittableRandom(8259);
        int before = sortedComparisons;
        for (int i = 0; i < 600; i++) {
            String document = new RandomJson(random, true).document();
            assertThat(meaningUnchanged(document.getBytes(UTF_8))).as(document).isTrue();
            assertSameAsReference(document);
        }
        assertThat(sortedComparisons - before).as("sortedJson compared byte for byte").isEqualTo(600 * CONTENT_TYPES.length);
    }

    @Test
    void randomCorruptionsOfRandomDocuments() {
        SplittableRandom random = new SplittableRandom(1999);
        byte[] interesting = {0, '\t', '\n', '\r', ' ', '"', '\\', ',', ':', '[', ']', '{', '}', '-', '+', '.', '0',
            '1', 'e', 'E', 'u', 't', 'n', 'a', '/', (byte) 0x7F, (byte) 0x80, (byte) 0xBF, (byte) 0xC3, (byte) 0xE2,
            (byte) 0xED, (byte) 0xF0, (byte) 0xF4, (byte) 0xFF};
        for (int i = 0; i < 600; i++) {
            byte[] document = new RandomJson(random, i % 2 == 0).document().getBytes(UTF_8);
            for (int m = 0; m < 8; m++) {
                byte[] mutated = document.clone();
                int edits = 1 + random.nextInt(3);
                for (int e = 0; e < edits && mutated.length > 0; e++) {
                    int at = random.nextInt(mutated.length);
                    byte b = interesting[random.nextInt(interesting.length)];
                    switch (random.nextInt(3)) {
                        case 0 -> mutated[at] = b;
                        case 1 -> mutated = insert(mutated, at, b);
                        default -> mutated = delete(mutated, at);
                    }
                }
                assertSameAsReference(mutated);
            }
        }
    }

    private static byte[] insert(byte[] bytes, int at, byte b) {
        byte[] out = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, out, 0, at);
        out[at] = b;
        System.arraycopy(bytes, at, out, at + 1, bytes.length - at);
        return out;
    }

    private static byte[] delete(byte[] bytes, int at) {
        byte[] out = new byte[bytes.length - 1];
        System.arraycopy(bytes, 0, out, 0, at);
        System.arraycopy(bytes, at + 1, out, at, bytes.length - at - 1);
        return out;
    }

    @Test
    void randomByteStrings() {
        SplittableRandom random = new SplittableRandom(3629);
        for (int i = 0; i < 5_000; i++) {
            byte[] inner = new byte[random.nextInt(8)];
            for (int j = 0; j < inner.length; j++) {
                inner[j] = (byte) (random.nextBoolean() ? 0x80 + random.nextInt(0x80) : random.nextInt(0x100));
            }
            byte[] body = new byte[inner.length + 2];
            body[0] = '"';
            System.arraycopy(inner, 0, body, 1, inner.length);
            body[body.length - 1] = '"';
            assertSameAsReference(body);
        }
    }

    // --- numbers ----------------------------------------------------------------------------------

    @Test
    void randomNumberLiterals() {
        SplittableRandom random = new SplittableRandom(754);
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            String literal = randomNumber(random);
            assertSameAsReference("[" + literal + "]");
            batch.append(batch.length() == 0 ? "[" : ",").append(literal);
        }
        assertSameAsReference(batch.append(']').toString());
    }

    /**
     * Where the shortest digits are one or two, at every decimal exponent, and the smallest
     * subnormals — whose rounding intervals are wide enough for several one-digit candidates.
     */
    @Test
    void oneAndTwoDigitNumbersAndTheSmallestSubnormals() {
        for (int exponent = -325; exponent <= 308; exponent++) {
            StringBuilder batch = new StringBuilder("[");
            for (int digits = 1; digits < 100; digits++) {
                batch.append(digits == 1 ? "" : ",").append(digits).append('e').append(exponent);
            }
            assertSameAsReference(batch.append(']').toString());
        }
        StringBuilder subnormals = new StringBuilder("[");
        for (long bits = 1; bits <= 5_000; bits++) {
            subnormals.append(bits == 1 ? "" : ",").append(Double.longBitsToDouble(bits));
        }
        assertSameAsReference(subnormals.append(']').toString());
    }

    /**
     * The hardest literals to read as a double: exactly halfway between two neighbours (ties go to
     * the even one), and a hair either side. jcs() reads numbers with Jackson's fast double parser,
     * the reference with {@code Double.parseDouble}.
     */
    @Test
    void literalsHalfwayBetweenTwoDoubles() {
        SplittableRandom random = new SplittableRandom(2);
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 3_000; i++) {
            double d = Math.abs(Double.longBitsToDouble(random.nextLong()));
            if (!Double.isFinite(d) || !Double.isFinite(Math.nextUp(d))) {
                continue;
            }
            BigDecimal halfway = new BigDecimal(d).add(new BigDecimal(Math.nextUp(d))).divide(BigDecimal.valueOf(2));
            BigDecimal hair = BigDecimal.ONE.movePointLeft(halfway.scale() + 3);
            for (BigDecimal literal : new BigDecimal[] {halfway, halfway.add(hair), halfway.subtract(hair)}) {
                batch.append(batch.length() == 1 ? "" : ",").append(literal.toString());
            }
            if (batch.length() > 200_000) {
                assertSameAsReference(batch.append(']').toString());
                batch.setLength(1);
            }
        }
        assertSameAsReference(batch.append(']').toString());
    }

    /** Number literals of every shape JSON allows, biased towards the edges of the short form. */
    static String randomNumber(SplittableRandom r) {
        StringBuilder s = new StringBuilder(r.nextInt(4) == 0 ? "-" : "");
        switch (r.nextInt(6)) {
            case 0 -> s.append(r.nextLong(1L << 54));
            case 1 -> s.append(Long.toUnsignedString(r.nextLong()));
            case 2 -> s.append(Double.toString(Math.abs(Double.longBitsToDouble(r.nextLong()))).replace("Infinity",
                    "1e999").replace("NaN", "0"));
            case 3 -> s.append(Math.abs(r.nextDouble() * Math.pow(10, r.nextInt(-8, 20))));
            default -> {
                s.append(r.nextInt(6) == 0 ? "0" : digits(r, 1 + r.nextInt(18), true));
                if (r.nextBoolean()) {
                    s.append('.');
                    if (r.nextInt(3) == 0) {
                        s.append("0".repeat(r.nextInt(9)));
                    }
                    s.append(digits(r, 1 + r.nextInt(17), false));
                    if (r.nextInt(3) == 0) {
                        s.append("0".repeat(1 + r.nextInt(4)));
                    }
                }
                if (r.nextInt(4) == 0) {
                    s.append(r.nextBoolean() ? 'e' : 'E').append(new String[] {"", "+", "-"}[r.nextInt(3)])
                            .append(r.nextInt(r.nextBoolean() ? 30 : 400));
                }
            }
        }
        return s.toString();
    }

    private static String digits(SplittableRandom r, int count, boolean leadingNonZero) {
        StringBuilder s = new StringBuilder(count);
        for (int i = 0; i < count; i++) {
            int bound = r.nextInt(4) == 0 ? 2 : 10; // runs of zeros and ones reach the rounding edges
            int d = r.nextInt(bound);
            s.append((char) ('0' + (i == 0 && leadingNonZero && d == 0 ? 1 : d)));
        }
        return s.toString();
    }

    /** Random JSON text: nested values, member names that sort in every interesting way, random spacing. */
    static final class RandomJson {
        private static final String[] NAME_PARTS = {"a", "b", "A", "é", "€", "😀", "\uE000", "\uFFFD", "\\n", "\\u0000",
            "\\u001f", "\\\"", "\\\\", "\\/", "#", " ", "\\u00e9", "\\uD83D\\uDE00", "\\uE000", "\u007f", "1", "z"};
        private static final String[] STRING_PARTS = {"a", "é", "€", "😀", "\\n", "\\u0007", "\\\"", "Z", "\\u00e9",
            "\\t", "\\b", "\\f", "\\r", "\\/", "\\\\", "\\u2028", "\\uDBFF\\uDFFF", "\u2029", "\uFEFF", "0123456789",
            "\\u0041", "\\u00FF"};
        private static final String[] SPACES = {"", "", "", " ", "\n", "\t", "\r\n  "};
        private final SplittableRandom r;
        /** Numbers only in their ECMAScript form, no duplicate names: documents sortedJson reads as before. */
        private final boolean meaningUnchanged;

        RandomJson(SplittableRandom r, boolean meaningUnchanged) {
            this.r = r;
            this.meaningUnchanged = meaningUnchanged;
        }

        String document() {
            return space() + value(0) + space();
        }

        private String number() {
            if (!meaningUnchanged) {
                return randomNumber(r);
            }
            while (true) {
                byte[] literal = ("[" + randomNumber(r) + "]").getBytes(UTF_8);
                byte[] canonical = REFERENCE_JCS.canonicalize(literal, null);
                if (canonical != literal) {
                    return new String(canonical, 1, canonical.length - 2, UTF_8);
                }
            }
        }

        private String space() {
            return SPACES[r.nextInt(SPACES.length)];
        }

        private String value(int depth) {
            int kind = depth > 4 ? r.nextInt(4) : r.nextInt(7);
            return switch (kind) {
                case 0 -> number();
                case 1 -> string(STRING_PARTS, 10);
                case 2 -> new String[] {"true", "false", "null"}[r.nextInt(3)];
                case 3 -> Long.toString(r.nextInt(1000));
                case 4 -> array(depth);
                default -> object(depth);
            };
        }

        private String string(String[] parts, int maxParts) {
            StringBuilder s = new StringBuilder("\"");
            for (int i = r.nextInt(maxParts); i > 0; i--) {
                s.append(parts[r.nextInt(parts.length)]);
            }
            return s.append('"').toString();
        }

        private String array(int depth) {
            StringBuilder a = new StringBuilder("[").append(space());
            for (int i = r.nextInt(5); i > 0; i--) {
                a.append(value(depth + 1)).append(space()).append(i > 1 ? "," + space() : "");
            }
            return a.append(']').toString();
        }

        private String object(int depth) {
            StringBuilder o = new StringBuilder("{").append(space());
            int members = r.nextInt(8);
            List<String> names = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                // repeat an earlier name now and then: duplicates, for both modes
                String name = !meaningUnchanged && !names.isEmpty() && r.nextInt(8) == 0
                        ? names.get(r.nextInt(names.size()))
                        : string(NAME_PARTS, 4);
                if (meaningUnchanged) {
                    // distinct, however the parts are spelled: no part holds a '~'
                    name = name.substring(0, name.length() - 1) + "~" + i + "\"";
                }
                names.add(name);
                o.append(name).append(space()).append(':').append(space()).append(value(depth + 1)).append(space())
                        .append(i < members - 1 ? "," + space() : "");
            }
            return o.append('}').toString();
        }
    }
}
