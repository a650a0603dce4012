package dev.idempotency.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.BodyCanonicalizer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JcsCanonicalizerTest {

    private static final BodyCanonicalizer JCS = JsonCanonicalizer.JCS;

    private static String canonical(String json) {
        return new String(JCS.canonicalize(json.getBytes(UTF_8), "application/json"), UTF_8);
    }

    private static void assertUnchanged(byte[] body, String contentType) {
        assertThat(JCS.canonicalize(body, contentType)).isSameAs(body);
    }

    private static void assertUnchanged(String body) {
        assertUnchanged(body.getBytes(UTF_8), "application/json");
    }

    // --- published RFC 8785 vectors ---------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
    void publishedVectorsBundledWithTheModule(String name) throws IOException {
        byte[] input = resource("rfc8785/input/" + name + ".json");
        byte[] expected = resource("rfc8785/output/" + name + ".json");

        assertThat(new String(JCS.canonicalize(input, "application/json"), UTF_8))
                .isEqualTo(new String(expected, UTF_8));
    }

    // --- ECMAScript number formatting -------------------------------------------------------

    @Test
    void es6NumberTableOf100kCases() throws IOException {
        try (InputStream in = new GZIPInputStream(
                JcsCanonicalizerTest.class.getResourceAsStream("/rfc8785/es6-numbers-100k.txt.gz"))) {
            assertNumberTable(in, 100_000);
        }
    }

    @Test
    void es6NumberEdgeCasesBundledWithTheModule() throws IOException {
        try (InputStream in = JcsCanonicalizerTest.class.getResourceAsStream("/rfc8785/es6-numbers-sample.txt")) {
            assertThat(in).isNotNull();
            assertNumberTable(in, 40);
        }
    }

    private static void assertNumberTable(InputStream in, int expectedLines) throws IOException {
        List<String> mismatches = new ArrayList<>();
        int lines = 0;
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, UTF_8));
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            lines++;
            int comma = line.indexOf(',');
            String hex = line.substring(0, comma);
            String expected = line.substring(comma + 1);
            String actual = EcmaScriptNumbers.format(Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16)));
            if (!actual.equals(expected)) {
                mismatches.add(hex + ": expected " + expected + ", got " + actual);
            }
        }
        assertThat(lines).isEqualTo(expectedLines);
        assertThat(mismatches)
                .as("%d of %d lines differ; first ones: %s", mismatches.size(), lines,
                        mismatches.subList(0, Math.min(10, mismatches.size())))
                .isEmpty();
    }

    @Test
    void formattedNumbersReadBackAndAreNeverLongerThanJavasDigits() {
        SplittableRandom random = new SplittableRandom(8785);
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            double d = i % 2 == 0
                    ? Double.longBitsToDouble(random.nextLong())
                    : random.nextInt(1_000_000) / Math.pow(10, random.nextInt(12));
            if (!Double.isFinite(d)) {
                continue;
            }
            String formatted = EcmaScriptNumbers.format(d);
            if (Double.parseDouble(formatted) != d
                    || significantDigits(formatted) > significantDigits(Double.toString(d))) {
                failures.add(formatted + " for " + Double.toString(d));
            }
        }
        assertThat(failures).isEmpty();
    }

    private static int significantDigits(String number) {
        return new java.math.BigDecimal(number).stripTrailingZeros().precision();
    }

    @Test
    void integersBelowTwoTo53PrintAsIntegers() {
        SplittableRandom random = new SplittableRandom(53);
        for (int i = 0; i < 100_000; i++) {
            long n = random.nextLong(-(1L << 53) + 1, 1L << 53);
            assertThat(EcmaScriptNumbers.format(n)).isEqualTo(Long.toString(n));
        }
        assertThat(EcmaScriptNumbers.format(-0.0)).isEqualTo("0");
        assertThat(EcmaScriptNumbers.format(9007199254740992.0)).isEqualTo("9007199254740992");
        assertThat(EcmaScriptNumbers.format(1e20)).isEqualTo("100000000000000000000");
    }

    @Test
    void nonFiniteValuesPrintAsInEcmaScript() {
        assertThat(EcmaScriptNumbers.format(Double.NaN)).isEqualTo("NaN");
        assertThat(EcmaScriptNumbers.format(Double.POSITIVE_INFINITY)).isEqualTo("Infinity");
        assertThat(EcmaScriptNumbers.format(Double.NEGATIVE_INFINITY)).isEqualTo("-Infinity");
    }

    // --- canonicalizer behaviour ------------------------------------------------------------

    @Test
    void memberOrderAndWhitespaceDoNotMatter() {
        assertThat(canonical("{\"b\":1,\"a\":2}")).isEqualTo(canonical("{ \"a\" : 2 ,\n\t\"b\" : 1 }"))
                .isEqualTo("{\"a\":2,\"b\":1}");
        assertThat(canonical("{\"z\":{\"y\":[3,{\"d\":1,\"c\":2}],\"x\":null}}"))
                .isEqualTo("{\"z\":{\"x\":null,\"y\":[3,{\"c\":2,\"d\":1}]}}");
        assertThat(canonical("[3, 1, 2]")).isEqualTo("[3,1,2]");
    }

    @Test
    void membersSortByUtf16CodeUnits() {
        String body = "{\"\\u20ac\":0,\"\\r\":0,\"\\ud83d\\ude00\":0,\"1\":0,\"\\u00f6\":0,\"\\ufb33\":0}";

        // U+1F600 is the surrogate pair D83D DE00, so it sorts before U+FB33 although its code
        // point is larger
        assertThat(canonical(body))
                .isEqualTo("{\"\\r\":0,\"1\":0,\"\u00f6\":0,\"\u20ac\":0,\"\ud83d\ude00\":0,\"\ufb33\":0}");
    }

    @Test
    void stringsUseTheRfcEscapesAndLiteralUtf8Otherwise() {
        String body = "\"\\u0008\\u000C\\n\\r\\t\\u0001\\u001F\\\"\\\\\\/\\u007f\\u2028\\u2029\u00e9\\u00e9\\ud83d\\ude00\"";

        assertThat(canonical(body))
                .isEqualTo("\"\\b\\f\\n\\r\\t\\u0001\\u001f\\\"\\\\/\u007f\u2028\u2029\u00e9\u00e9\ud83d\ude00\"");
    }

    @Test
    void numbersAreReadAsDoublesAndPrintedAsInEcmaScript() {
        assertThat(canonical("[1.0, -0, -0.0, 1E2, 0.1, 1e21, 1e-7, 4.50, 2e-3, 1e-6,"
                + " 123456789012345678901234567890, 9007199254740993, -5e-324]"))
                .isEqualTo("[1,0,0,100,0.1,1e+21,1e-7,4.5,0.002,0.000001,"
                        + "1.2345678901234568e+29,9007199254740992,-5e-324]");
    }

    @Test
    void equatesTheBodiesItsJavadocNames() {
        // what a user of jcs() accepts: a number is its double, whatever the spelling
        assertThat(canonical("[1]")).isEqualTo(canonical("[1.0]")).isEqualTo(canonical("[1e0]"))
                .isEqualTo(canonical("[10E-1]")).isEqualTo("[1]");
        assertThat(canonical("{\"ref\":12345678901234567890}")).isEqualTo(canonical("{\"ref\":12345678901234567891}"));
        assertThat(canonical("[9007199254740993]")).isEqualTo(canonical("[9007199254740992]"));
        assertThat(canonical("[0.1]")).isEqualTo(canonical("[0.10000000000000000001]"));
        assertThat(canonical("[-0]")).isEqualTo(canonical("[0]"));
        assertThat(canonical("[\"\\u0041\"]")).isEqualTo(canonical("[\"A\"]"));
    }

    @Test
    void theShortestDigitsEvenWhereSchubfachGivesTwo() {
        // Schubfach (as Java 19+'s Double.toString) gives 4.9E-324, ECMAScript 5e-324
        assertThat(EcmaScriptNumbers.format(Double.MIN_VALUE)).isEqualTo("5e-324");
        assertThat(EcmaScriptNumbers.format(-2 * Double.MIN_VALUE)).isEqualTo("-1e-323");
        assertThat(EcmaScriptNumbers.format(3 * Double.MIN_VALUE)).isEqualTo("1.5e-323");
        assertThat(EcmaScriptNumbers.format(Double.longBitsToDouble(0x13))).isEqualTo("9.4e-323");
        assertThat(EcmaScriptNumbers.format(9.5e-323)).isEqualTo("9.4e-323");
        assertThat(EcmaScriptNumbers.format(1e-322)).isEqualTo("1e-322");
    }

    @Test
    void topLevelScalarsAreCanonicalizedToo() {
        assertThat(canonical(" \"x\" ")).isEqualTo("\"x\"");
        assertThat(canonical("\n42.0\n")).isEqualTo("42");
        assertThat(canonical("null")).isEqualTo("null");
        assertThat(canonical("[true,false,null]")).isEqualTo("[true,false,null]");
    }

    @Test
    void jsonContentTypesAreCanonicalizedOthersAreNot() {
        byte[] body = "{\"b\":1, \"a\":2}".getBytes(UTF_8);
        byte[] expected = "{\"a\":2,\"b\":1}".getBytes(UTF_8);

        assertThat(JCS.canonicalize(body, null)).isEqualTo(expected);
        assertThat(JCS.canonicalize(body, "application/json; charset=utf-8")).isEqualTo(expected);
        assertThat(JCS.canonicalize(body, "application/problem+json")).isEqualTo(expected);
        assertUnchanged(body, "text/plain");
        assertUnchanged(body, "application/x-www-form-urlencoded");
        assertUnchanged(new byte[0], "application/json");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "   ",
        "{\"a\":",
        "[1,2",
        "{\"a\":1} x",
        "{\"a\":1}{\"b\":2}",
        "1 2",
        "[1,]",
        "{'a':1}",
        "{a:1}",
        "/* comment */ 1",
        "NaN",
        "[Infinity]",
        "01",
        "+1",
        ".5",
        "1.",
        "[1e400]",
        "-1e400",
        "{\"a\":1,\"a\":1}",
        "{\"x\":{\"a\":1,\"b\":2,\"a\":3}}",
        "[\"\\ud800\"]",
        "\"\\udc00\\ud800\"",
        "{\"\\ud83d\":1}",
        "\"tab\tinside\"",
        "\"unterminated",
        "\uFEFF{}",
    })
    void invalidJsonIsReturnedUnchanged(String body) {
        assertUnchanged(body);
    }

    @Test
    void numbersBeyondTheDoubleRangeAreNotJcs() {
        assertUnchanged("[1" + "0".repeat(400) + "]");
    }

    @Test
    void illFormedUtf8IsReturnedUnchanged() {
        byte[][] bodies = {
            {'"', (byte) 0xC3, '(', '"'},                 // broken two-byte sequence
            {'"', (byte) 0xC0, (byte) 0xAF, '"'},         // overlong '/'
            {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}, // an encoded surrogate
            {'"', (byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80, '"'},
            {'"', (byte) 0xE2, (byte) 0x82, '"'},         // truncated euro sign
        };
        for (byte[] body : bodies) {
            assertUnchanged(body, "application/json");
        }
    }

    @Test
    void deepNestingIsHandledWithoutRecursionUpToJacksonsLimit() {
        String nested = "[".repeat(999) + "{\"k\" : 1}" + "]".repeat(999);
        assertThat(canonical(nested)).isEqualTo(nested.replace(" ", ""));

        assertUnchanged("[".repeat(100_000) + "]".repeat(100_000));
    }

    @Test
    void largeDocumentsRoundTripThroughTheCanonicalForm() {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < 10_000; i++) {
            json.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append(",\"price\":").append(i / 7.0)
                    .append(",\"name\":\"item ").append(i).append("\"}");
        }
        String once = canonical(json.append(']').toString());

        assertThat(canonical(once)).isEqualTo(once);
        assertThat(once).startsWith("[{\"id\":0,\"name\":\"item 0\",\"price\":0},{\"id\":1,\"name\":\"item 1\","
                + "\"price\":0.14285714285714285}");
    }

    private static byte[] resource(String name) {
        try (InputStream in = JcsCanonicalizerTest.class.getResourceAsStream("/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
