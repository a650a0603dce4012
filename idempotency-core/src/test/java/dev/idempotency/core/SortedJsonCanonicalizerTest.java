package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SortedJsonCanonicalizerTest {

    private final BodyCanonicalizer canonicalizer = BodyCanonicalizer.sortedJson();

    private String canonical(String body, String contentType) {
        return new String(canonicalizer.canonicalize(body.getBytes(StandardCharsets.UTF_8), contentType),
                StandardCharsets.UTF_8);
    }

    @Test
    void objectKeysAreSortedRecursivelyAndArraysKeepTheirOrder() {
        assertThat(canonical("{ \"b\": [3, {\"z\":1, \"a\":2}], \"a\": {\"d\": null, \"c\": true} }", "application/json"))
                .isEqualTo("{\"a\":{\"c\":true,\"d\":null},\"b\":[3,{\"a\":2,\"z\":1}]}");
    }

    @Test
    void keysSortByUtf16CodeUnitsLikeJavaScript() {
        // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FB01 in UTF-16 (not in code points).
        assertThat(canonical("{\"\uFB01\":1,\"\uD83D\uDE00\":2,\"a\":3}", null))
                .isEqualTo("{\"a\":3,\"\uD83D\uDE00\":2,\"\uFB01\":1}");
    }

    @Test
    void numbersAreComparedAsDoublesLikeJavaScript() {
        assertThat(canonical("{\"a\":1.0,\"b\":1e2,\"c\":-0,\"d\":0.10}", null)).isEqualTo("{\"a\":1,\"b\":100,\"c\":0,\"d\":0.1}");
    }

    @Test
    void theLastDuplicateKeyWinsAsInJsonParse() {
        assertThat(canonical("{\"a\":1,\"a\":2}", "application/json")).isEqualTo("{\"a\":2}");
    }

    @Test
    void nonJsonContentTypesAndUnparsableBodiesAreKeptAsRawBytes() {
        assertThat(canonical("{\"b\":1,\"a\":2}", "text/plain")).isEqualTo("{\"b\":1,\"a\":2}");
        assertThat(canonical("{\"b\":1,", "application/json")).isEqualTo("{\"b\":1,");
        assertThat(canonical("{} trailing", "application/json")).isEqualTo("{} trailing");
        assertThat(canonical("", "application/json")).isEmpty();
    }

    @Test
    void structuredJsonSuffixesCountAsJson() {
        assertThat(canonical("{\"b\":1,\"a\":2}", "application/merge-patch+json; charset=utf-8"))
                .isEqualTo("{\"a\":2,\"b\":1}");
        assertThat(canonical("{\"b\":1,\"a\":2}", "APPLICATION/JSON")).isEqualTo("{\"a\":2,\"b\":1}");
    }

    @Test
    void extremeNestingFallsBackToRawBytesInsteadOfFailing() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        assertThat(canonical(deep, "application/json")).isEqualTo(deep);
    }

    @Test
    void hugeNumbersDoNotBreakCanonicalization() {
        String body = "{\"n\":1e999999,\"m\":" + "9".repeat(500) + "}";
        byte[] once = canonicalizer.canonicalize(body.getBytes(StandardCharsets.UTF_8), null);
        assertThat(canonicalizer.canonicalize(body.getBytes(StandardCharsets.UTF_8), null)).isEqualTo(once);
    }
}
