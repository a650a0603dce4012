package dev.idempotency.core.canonical;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.BodyCanonicalizer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SortedJsonCanonicalizerTest {

    private final BodyCanonicalizer canonicalizer = BodyCanonicalizer.sortedJson();

    private String canonical(String body, String contentType) {
        return new String(canonicalizer.canonicalize(body.getBytes(StandardCharsets.UTF_8), contentType),
                StandardCharsets.UTF_8);
    }

    private String canonical(String body) {
        return canonical(body, "application/json");
    }

    private void assertRaw(byte[] body) {
        assertThat(canonicalizer.canonicalize(body, "application/json")).isSameAs(body);
    }

    @Test
    void objectKeysAreSortedRecursivelyAndArraysKeepTheirOrder() {
        assertThat(canonical("{ \"b\": [3, {\"z\":1, \"a\":2}], \"a\": {\"d\": null, \"c\": true} }"))
                .isEqualTo("{\"a\":{\"c\":true,\"d\":null},\"b\":[3,{\"a\":2,\"z\":1}]}");
    }

    @Test
    void keysSortByUtf16CodeUnitsLikeJavaScript() {
        // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FB01 in UTF-16 (not in code points).
        assertThat(canonical("{\"\uFB01\":1,\"\uD83D\uDE00\":2,\"a\":3}", null))
                .isEqualTo("{\"a\":3,\"\uD83D\uDE00\":2,\"\uFB01\":1}");
    }

    @Test
    void numbersAreKeptExactlyAsWritten() {
        String body = "[1, 1.0, 1e0, 1E0, 1e+0, 10e-1, -0, -0.0, 0.10, 12345678901234567890, 1e400, 9007199254740993]";
        assertThat(canonical(body)).isEqualTo(body.replace(" ", ""));
    }

    @Test
    void bodiesWhoseNumbersADoubleCannotTellApartStayApart() {
        assertThat(canonical("{\"ref\":12345678901234567890}")).isNotEqualTo(canonical("{\"ref\":12345678901234567891}"));
        assertThat(canonical("{\"x\":0.1}")).isNotEqualTo(canonical("{\"x\":0.10000000000000000001}"));
        assertThat(canonical("[9007199254740992]")).isNotEqualTo(canonical("[9007199254740993]"));
        assertThat(canonical("[1]")).isNotEqualTo(canonical("[1.0]")).isNotEqualTo(canonical("[1e0]"));
        assertThat(canonical("[0]")).isNotEqualTo(canonical("[-0]"));
    }

    @Test
    void duplicateNamesAreAllKeptInTheOrderTheyCame() {
        assertThat(canonical("{\"b\":0,\"a\":1,\"c\":3,\"a\":2}")).isEqualTo("{\"a\":1,\"a\":2,\"b\":0,\"c\":3}");
        assertThat(canonical("{\"a\":2,\"a\":1}")).isEqualTo("{\"a\":2,\"a\":1}");
        assertThat(canonical("{\"a\":1,\"a\":2}")).isNotEqualTo(canonical("{\"a\":2,\"a\":1}"))
                .isNotEqualTo(canonical("{\"a\":2}"));
        // the same name, spelled two ways
        assertThat(canonical("{\"\\u0061\":1,\"a\":2}")).isEqualTo("{\"a\":1,\"a\":2}");
    }

    @Test
    void stringEscapesResolveToOneForm() {
        assertThat(canonical("[\"\\u0041\\/\\u00e9\\uD83D\\uDE00\\u001F\\u0008\\n\\\"\\\\\"]"))
                .isEqualTo(canonical("[\"A/é😀\\u001f\\b\\n\\\"\\\\\"]"))
                .isEqualTo("[\"A/é😀\\u001f\\b\\n\\\"\\\\\"]");
        assertThat(canonical("{\"\\u0062\":1,\"a\":\"\\u2028\"}")).isEqualTo("{\"a\":\"\u2028\",\"b\":1}");
    }

    @Test
    void insignificantWhitespaceIsDropped() {
        assertThat(canonical(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] }\n")).isEqualTo("{\"a\":[1,2]}");
        assertThat(canonical("{\"a b\":\" x \"}")).isEqualTo("{\"a b\":\" x \"}");
    }

    @Test
    void nonJsonContentTypesAndUnparsableBodiesAreKeptAsRawBytes() {
        assertThat(canonical("{\"b\":1,\"a\":2}", "text/plain")).isEqualTo("{\"b\":1,\"a\":2}");
        assertThat(canonical("{\"b\":1,")).isEqualTo("{\"b\":1,");
        assertThat(canonical("{} trailing")).isEqualTo("{} trailing");
        assertThat(canonical("")).isEmpty();
        byte[] empty = new byte[0];
        assertRaw(empty);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1 2", "{} {}", "[1,]", "{\"a\":1,}", "[01]", "[NaN]", "{'a':1}", "/**/1", "[\"\\ud800\"]",
        "[\"\\udc00\\ud800\"]", "{\"\\ud83d\":1}", "[\"\\x\"]", "\"tab\tinside\"", "   "})
    void bodiesThatAreNotOneStrictJsonValueAreRaw(String body) {
        assertRaw(body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void twoDifferentLoneSurrogatesDoNotCollapse() {
        byte[] d800 = "[\"\\ud800\"]".getBytes(StandardCharsets.UTF_8);
        byte[] d801 = "[\"\\ud801\"]".getBytes(StandardCharsets.UTF_8);
        assertRaw(d800);
        assertRaw(d801);
    }

    @Test
    void onlyWellFormedUtf8WithoutByteOrderMarkIsCanonicalized() {
        byte[][] raw = {
            {'"', (byte) 0xC0, (byte) 0xAF, '"'},                          // overlong '/'
            {'"', (byte) 0xE0, (byte) 0x80, (byte) 0xAF, '"'},             // overlong '/', three bytes
            {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'},             // the surrogate D800, encoded
            {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}, // above U+10FFFF
            {'"', (byte) 0xC3, '"'},                                       // cut short
            {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'},        // UTF-8 byte order mark
            {(byte) 0xFE, (byte) 0xFF, 0, '[', 0, '1', 0, ']'},             // UTF-16BE with mark
            {'[', 0, '1', 0, ']', 0},                                      // UTF-16LE without mark
            {0, 0, 0, '1'},                                                // UTF-32BE
        };
        for (byte[] body : raw) {
            assertRaw(body);
        }
        assertThat(canonical("[\"\u00e9\u20ac\uD83D\uDE00\uFFFF\"]")).isEqualTo("[\"\u00e9\u20ac\uD83D\uDE00\uFFFF\"]");
    }

    @Test
    void structuredJsonSuffixesCountAsJson() {
        assertThat(canonical("{\"b\":1,\"a\":2}", "application/merge-patch+json; charset=utf-8"))
                .isEqualTo("{\"a\":2,\"b\":1}");
        assertThat(canonical("{\"b\":1,\"a\":2}", "APPLICATION/JSON")).isEqualTo("{\"a\":2,\"b\":1}");
    }

    @Test
    void nestingUpToJacksonsLimitIsCanonicalizedDeeperIsRaw() {
        String limit = "[".repeat(1000) + "]".repeat(1000);
        assertThat(canonical(limit)).isEqualTo(limit);
        String deep = "[".repeat(1001) + "]".repeat(1001);
        assertThat(canonical(deep)).isEqualTo(deep);
        assertRaw(deep.getBytes(StandardCharsets.UTF_8));
        assertRaw(("[".repeat(100_000) + "]".repeat(100_000)).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void numbersUpToAThousandDigitsAreKeptLongerOnesAreRaw() {
        String thousand = "{\"n\":1e999999,\"m\":" + "9".repeat(1000) + "}";
        assertThat(canonical(thousand)).isEqualTo("{\"m\":" + "9".repeat(1000) + ",\"n\":1e999999}");
        assertRaw(("[" + "9".repeat(1001) + "]").getBytes(StandardCharsets.UTF_8));
    }

    /** The deepest body the limits allow (1,000 levels) is canonicalized alike on a thread with a small stack. */
    @Test
    void theDeepestBodiesFitAThreadWithA64KiBStack() throws InterruptedException {
        String objects = "{\"b\":1,\"a\":".repeat(999) + "[]" + "}".repeat(999);
        String arrays = "[".repeat(1000) + "]".repeat(1000);
        for (String body : new String[] {objects, arrays}) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            byte[] onThisThread = BodyCanonicalizer.sortedJson().canonicalize(bytes, "application/json");
            byte[][] onSmallStack = new byte[1][];
            Thread small = new Thread(null, () -> onSmallStack[0] = BodyCanonicalizer.sortedJson()
                    .canonicalize(bytes, "application/json"), "small-stack", 64 * 1024);
            small.start();
            small.join();
            assertThat(onSmallStack[0]).isEqualTo(onThisThread).isNotSameAs(bytes);
        }
        assertThat(new String(BodyCanonicalizer.sortedJson().canonicalize(objects.getBytes(StandardCharsets.UTF_8),
                "application/json"), StandardCharsets.UTF_8)).isEqualTo("{\"a\":".repeat(999) + "[]" + ",\"b\":1}".repeat(999));
    }
}
