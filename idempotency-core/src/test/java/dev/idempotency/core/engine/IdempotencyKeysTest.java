package dev.idempotency.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeysTest {

    private static IdempotencyKeys.Parsed parse(String value) {
        return IdempotencyKeys.parse(List.of(value));
    }

    @Test
    void aBareTokenIsTheKey() {
        assertThat(parse("  01HXYZ-abc_123  ")).isEqualTo(new IdempotencyKeys.Parsed.Valid("01HXYZ-abc_123"));
    }

    @Test
    void anSfStringIsUnquotedWithItsEscapes() {
        assertThat(parse("\"a\\\"b\\\\c\"")).isEqualTo(new IdempotencyKeys.Parsed.Valid("a\"b\\c"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\"\"", "\"  \"", "\"a\tb\"", "\"a\u00e9\"", "\"a\u0001b\"", "\"a", "\"a\\x\"",
        "\"a\"b", "a b", "\u00e9", "\"a\\\""})
    void malformedOrNonVisibleKeysAreInvalid(String value) {
        assertThat(parse(value)).isInstanceOf(IdempotencyKeys.Parsed.Invalid.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"key,with,commas,longer-than-twenty-chars", "a, b", "a,a", "k;v=1", "a(b)", "a<b>",
        "a?b", "a@b", "a[b]", "a{b}", "a\\b", "a\"b"})
    void aBareKeyWithADelimiterIsInvalid(String value) {
        assertThat(parse(value)).isInstanceOf(IdempotencyKeys.Parsed.Invalid.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0f8fad5b-d9cb-469f-a165-70867728950e", "01HXYZ3NDEKTSV4RRFFQ69G5FAV",
        "q83vEjRWeJA=", "a+b/c==", "orders:42/retry", "!#$%&'*+-.^_`|~"})
    void aBareKeyOfTokenCharactersColonsSlashesAndEqualsIsValid(String value) {
        assertThat(parse(value)).isEqualTo(new IdempotencyKeys.Parsed.Valid(value));
    }

    @Test
    void aQuotedKeyMayCarryTheDelimitersABareOneMayNot() {
        assertThat(parse("\"a,b;c(d)@e\"")).isEqualTo(new IdempotencyKeys.Parsed.Valid("a,b;c(d)@e"));
    }

    @Test
    void aQuotedKeyMayHoldSpacesAsAnSfStringMay() {
        assertThat(parse("\"order 42\"")).isEqualTo(new IdempotencyKeys.Parsed.Valid("order 42"));
        assertThat(parse("\" order 42 \"")).isEqualTo(new IdempotencyKeys.Parsed.Valid(" order 42 "));
    }

    @Test
    void theLengthLimitIs255AfterUnquoting() {
        assertThat(parse("x".repeat(255))).isInstanceOf(IdempotencyKeys.Parsed.Valid.class);
        assertThat(parse("\"" + "x".repeat(255) + "\"")).isInstanceOf(IdempotencyKeys.Parsed.Valid.class);
        assertThat(parse("x".repeat(256))).isInstanceOf(IdempotencyKeys.Parsed.Invalid.class);
    }

    @Test
    void absentAndRepeatedHeaders() {
        assertThat(IdempotencyKeys.parse(List.of())).isInstanceOf(IdempotencyKeys.Parsed.Missing.class);
        assertThat(IdempotencyKeys.parse(List.of("a", "a"))).isInstanceOf(IdempotencyKeys.Parsed.Invalid.class);
    }
}
