package dev.idempotency.core;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The short way of {@link EcmaScriptNumbers#appendCanonical} — a literal without exponent and with
 * at most 15 significant digits is written from its text — must print exactly what the long way
 * (parse to a double, {@link EcmaScriptNumbers#format}) prints.
 */
class EcmaScriptNumbersTest {

    /** What the short way writes for a plain literal, or {@code null} when it declines. */
    private static String shortWay(String literal) {
        char[] text = ("  " + literal + " ").toCharArray(); // not at the start of the array
        CanonicalWriter out = new CanonicalWriter();
        out.start(8);
        if (!EcmaScriptNumbers.appendCanonical(text, 2, text.length - 1, out)) {
            return null;
        }
        return new String(out.toByteArray(), US_ASCII);
    }

    private static String longWay(String literal) {
        return EcmaScriptNumbers.format(Double.parseDouble(literal));
    }

    /** Checks the literal if the short way takes it; returns whether it did. */
    private static boolean check(String literal, List<String> mismatches) {
        String shortWay = shortWay(literal);
        if (shortWay == null) {
            return false;
        }
        String longWay = longWay(literal);
        if (!shortWay.equals(longWay)) {
            mismatches.add(literal + ": short way " + shortWay + ", long way " + longWay);
        }
        return true;
    }

    @Test
    void fixedLiterals() {
        assertThat(shortWay("0")).isEqualTo("0");
        assertThat(shortWay("-0")).isEqualTo("0");
        assertThat(shortWay("-0.000")).isEqualTo("0");
        assertThat(shortWay("1.50")).isEqualTo("1.5");
        assertThat(shortWay("20.0")).isEqualTo("20");
        assertThat(shortWay("-12.3400")).isEqualTo("-12.34");
        assertThat(shortWay("0.000001")).isEqualTo("0.000001");
        assertThat(shortWay("0.0000001")).as("below 10^-6: an exponent").isNull();
        assertThat(shortWay("999999999999999")).isEqualTo("999999999999999");
        assertThat(shortWay("1000000000000000")).as("16 integer digits").isNull();
        assertThat(shortWay("0.1234567890123456")).as("16 significant digits").isNull();
        assertThat(shortWay("12345678901234.5")).isEqualTo("12345678901234.5");
        assertThat(shortWay("123456789012345.6")).isNull();
    }

    @Test
    void agreesWithTheLongWayOnThePublishedNumberTable() throws IOException {
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        SplittableRandom random = new SplittableRandom(15);
        try (InputStream in = new GZIPInputStream(
                EcmaScriptNumbersTest.class.getResourceAsStream("/rfc8785/es6-numbers-100k.txt.gz"))) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                String expected = line.substring(line.indexOf(',') + 1);
                double d = Double.longBitsToDouble(Long.parseUnsignedLong(line.substring(0, line.indexOf(',')), 16));
                List<String> literals = new ArrayList<>();
                if (expected.indexOf('e') < 0) {
                    literals.add(expected);
                    literals.add(expected + (expected.indexOf('.') < 0 ? ".000" : "00"));
                }
                // other decimals near the number, of 1 to 15 significant digits
                BigDecimal exact = new BigDecimal(d);
                literals.add(exact.round(new MathContext(15)).toPlainString());
                literals.add(exact.round(new MathContext(1 + random.nextInt(15))).toPlainString());
                for (String literal : literals) {
                    if (check(literal, mismatches)) {
                        checked++;
                    }
                }
            }
        }
        assertThat(mismatches).as("first mismatches: %s", mismatches.subList(0, Math.min(10, mismatches.size())))
                .isEmpty();
        // most of the table is random bit patterns, far outside the short way's range
        assertThat(checked).as("literals the short way took").isGreaterThan(5_000);
    }

    @Test
    void agreesWithTheLongWayOnRandomLiterals() {
        SplittableRandom random = new SplittableRandom(1015);
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder literal = new StringBuilder(random.nextBoolean() ? "-" : "");
            int intDigits = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(16);
            literal.append(intDigits == 0 ? "0" : digits(random, intDigits, true));
            if (random.nextInt(4) != 0) {
                literal.append('.').append("0".repeat(intDigits == 0 ? random.nextInt(8) : 0))
                        .append(digits(random, 1 + random.nextInt(16), false));
            }
            if (check(literal.toString(), mismatches)) {
                checked++;
            }
        }
        assertThat(mismatches).as("first mismatches: %s", mismatches.subList(0, Math.min(10, mismatches.size())))
                .isEmpty();
        assertThat(checked).as("literals the short way took").isGreaterThan(50_000);
    }

    /** Digits biased towards nines and zeros, where rounding to a double carries. */
    private static String digits(SplittableRandom random, int count, boolean leadingNonZero) {
        StringBuilder s = new StringBuilder(count);
        for (int i = 0; i < count; i++) {
            int kind = random.nextInt(3);
            char digit = kind == 0 ? '9' : kind == 1 ? '0' : (char) ('0' + random.nextInt(10));
            s.append(i == 0 && leadingNonZero && digit == '0' ? '1' : digit);
        }
        return s.toString();
    }
}
