package dev.idempotency.core.canonical;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;

/**
 * Writes numbers as ECMAScript's {@code Number.prototype.toString()} does, the number
 * serialization of RFC 8785.
 *
 * <p>The digits are the shortest decimal that reads back as the same double; among equally short
 * candidates the one closest to the exact binary value, an exact tie going to the even digit.
 * Java 17's {@code Double.toString} does not always give the shortest digits; jackson-core's
 * Schubfach implementation ({@code NumberOutput.toString(d, true)}, R. Giulietti's algorithm, as in
 * JDK 19+) does, with one documented exception this class corrects: when a single digit would do,
 * it may give two (the closer decimal of length two: {@code 4.9E-324} for the smallest subnormal,
 * where ECMAScript writes {@code 5e-324}). The digits are then laid out the ECMAScript way.
 *
 * <p>Stateless and thread-safe.
 */
final class EcmaScriptNumbers {

    private static final double TWO_POW_53 = 9007199254740992.0;

    private EcmaScriptNumbers() {
    }

    /**
     * @return {@code Number.prototype.toString(d)}: e.g. {@code "0"} for ±0, {@code "1e+21"},
     *     {@code "1e-7"}, {@code "0.000001"}, {@code "123456789012345680000"}, and {@code "NaN"},
     *     {@code "Infinity"}, {@code "-Infinity"} for the non-finite values
     */
    static String format(double d) {
        if (d == 0) {
            return "0";
        }
        if (Math.abs(d) < TWO_POW_53 && d == Math.rint(d)) {
            // every integer below 2^53 is exact, and no shorter decimal rounds to it
            return Long.toString((long) d);
        }
        if (!Double.isFinite(d)) {
            return Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
        }
        // Schubfach's form: [-]digits.digits[E[-]exponent], e.g. 1.0E21, 0.001, 1.2345678901234568E29
        String schubfach = NumberOutput.toString(d, true);
        if (schubfach.indexOf('E') < 0) {
            // from 10^-3 to 10^7 both write a plain decimal; the integers among those (".0") were
            // taken above, so the rest need no trailing zero dropped: the same text
            return schubfach;
        }
        StringBuilder digits = new StringBuilder(20);
        int pointAfter = -1;
        int exponent = 0;
        for (int i = d < 0 ? 1 : 0; i < schubfach.length(); i++) {
            char c = schubfach.charAt(i);
            if (c == '.') {
                pointAfter = digits.length();
            } else if (c == 'E') {
                exponent = Integer.parseInt(schubfach, i + 1, schubfach.length(), 10);
                break;
            } else {
                digits.append(c);
            }
        }
        // value = 0.<digits> * 10^n, with digits stripped of leading and trailing zeros
        int n = (pointAfter < 0 ? digits.length() : pointAfter) + exponent;
        int leadingZeros = 0;
        while (digits.charAt(leadingZeros) == '0') {
            leadingZeros++;
        }
        digits.delete(0, leadingZeros);
        n -= leadingZeros;
        int length = digits.length();
        while (digits.charAt(length - 1) == '0') {
            length--;
        }
        digits.setLength(length);
        if (length == 2) {
            n = oneDigitIfEnough(d, digits, n);
        }
        return layOut(d < 0, digits, n);
    }

    /**
     * Schubfach gives two digits where one would read back too when those two are closer to the
     * value; ECMAScript wants the shortest. The one-digit candidates are the two digits rounded
     * down and up (the value lies strictly between them); of those that read back as {@code d},
     * the closer wins, on a tie the even one.
     *
     * @param digits two digits, replaced by the chosen one if one will do
     * @return the decimal exponent n of the digits now in {@code digits}
     */
    private static int oneDigitIfEnough(double d, StringBuilder digits, int n) {
        int first = digits.charAt(0) - '0';
        double magnitude = Math.abs(d);
        boolean down = Double.parseDouble(first + "E" + (n - 1)) == magnitude;
        boolean up = Double.parseDouble((first + 1) + "E" + (n - 1)) == magnitude;
        if (!down && !up) {
            return n;
        }
        if (down && up) {
            BigDecimal exact = new BigDecimal(magnitude);
            int byDistance = exact.subtract(new BigDecimal(first + "E" + (n - 1)))
                    .compareTo(new BigDecimal((first + 1) + "E" + (n - 1)).subtract(exact));
            down = byDistance < 0 || byDistance == 0 && first % 2 == 0;
        }
        digits.setLength(0);
        if (down) {
            digits.append((char) ('0' + first));
            return n;
        }
        if (first == 9) {
            digits.append('1'); // 9.x rounds up to 10: one digit, one place further left
            return n + 1;
        }
        digits.append((char) ('0' + first + 1));
        return n;
    }

    /**
     * ECMAScript's Number::toString layout of 0.{@code digits} × 10^{@code n} (k digits, the first
     * and last not zero): an integer with trailing zeros up to 21 digits, a plain decimal down to
     * 10^-6, otherwise one digit, the rest after a point, and {@code e+n} / {@code e-n}.
     */
    private static String layOut(boolean negative, CharSequence digits, int n) {
        int k = digits.length();
        StringBuilder out = new StringBuilder(k + 26);
        if (negative) {
            out.append('-');
        }
        if (k <= n && n <= 21) {
            out.append(digits).append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(digits, 0, n).append('.').append(digits, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(digits);
        } else {
            out.append(digits.charAt(0));
            if (k > 1) {
                out.append('.').append(digits, 1, k);
            }
            int e = n - 1;
            out.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
        }
        return out.toString();
    }
}
