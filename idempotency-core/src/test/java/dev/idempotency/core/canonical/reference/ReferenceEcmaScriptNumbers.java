package dev.idempotency.core.canonical.reference;

import java.math.BigInteger;

/**
 * The reference copy of the core's {@code EcmaScriptNumbers} of commit 9b84ab0, used by
 * {@link ReferenceJcsCanonicalizer}.
 *
 * <p>Formats doubles exactly as ECMAScript's {@code Number.prototype.toString()} does, which is the
 * number serialization RFC 8785 requires.
 *
 * <p>The digits are the shortest decimal that reads back as the same double; among equally short
 * candidates the one closest to the exact binary value wins, and an exact tie goes to the even
 * digit. Java 17's {@code Double.toString} does not guarantee the shortest digits, hence this
 * class. The digit search follows the Schubfach idea (R. Giulietti, "The Schubfach way to render
 * doubles"): scale the rounding interval of the double by a power of ten so that it spans between
 * 1 and 10 units, then only a handful of integer candidates have to be checked, and those checks
 * are made exact by computing the scaled bounds rounded to odd.
 *
 * <p>Stateless and thread-safe.
 */
final class ReferenceEcmaScriptNumbers {

    /** Binary exponent of the unit of the subnormals (and of the smallest normal binade). */
    private static final int Q_MIN = -1074;
    /** The significand of a power of two; its lower neighbour is closer than its upper one. */
    private static final long C_MIN = 1L << 52;
    private static final double TWO_POW_53 = 9007199254740992.0;

    private static final double LOG10_2 = 0.30102999566398119521;
    private static final double LOG10_3_4 = -0.12493873660829995313;

    /** Range of the decimal scale k over all finite doubles. */
    private static final int K_MIN = -324;
    private static final int K_MAX = 292;

    /**
     * For each k: g = floor(10^-k * 2^(125 - f)) + 1 with f = floor(log2(10^-k)), a 126-bit upper
     * approximation of 10^-k, split into its high and low 63 bits.
     */
    private static final long[] G_HIGH = new long[K_MAX - K_MIN + 1];
    private static final long[] G_LOW = new long[K_MAX - K_MIN + 1];
    private static final int[] FLOOR_LOG2_POW10_NEG_K = new int[K_MAX - K_MIN + 1];

    private static final long LOW_63_BITS = Long.MAX_VALUE;

    static {
        BigInteger mask63 = BigInteger.valueOf(LOW_63_BITS);
        for (int k = K_MIN; k <= K_MAX; k++) {
            int i = k - K_MIN;
            BigInteger g;
            int f;
            if (k <= 0) {
                BigInteger pow = BigInteger.TEN.pow(-k);
                f = pow.bitLength() - 1;
                int e = 125 - f;
                g = (e >= 0 ? pow.shiftLeft(e) : pow.shiftRight(-e)).add(BigInteger.ONE);
            } else {
                // 10^k is not a power of two, so log2(10^-k) lies strictly between two integers
                BigInteger pow = BigInteger.TEN.pow(k);
                f = -pow.bitLength();
                g = BigInteger.ONE.shiftLeft(125 - f).divide(pow).add(BigInteger.ONE);
            }
            if (g.bitLength() != 126) {
                throw new AssertionError("power of ten table out of range at k=" + k);
            }
            G_HIGH[i] = g.shiftRight(63).longValueExact();
            G_LOW[i] = g.and(mask63).longValueExact();
            FLOOR_LOG2_POW10_NEG_K[i] = f;
        }
    }

    private ReferenceEcmaScriptNumbers() {
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
        long bits = Double.doubleToRawLongBits(d);
        int biasedExponent = (int) (bits >>> 52) & 0x7ff;
        long fraction = bits & (C_MIN - 1);
        long c;
        int q;
        if (biasedExponent == 0) {
            c = fraction;
            q = Q_MIN;
        } else {
            c = fraction | C_MIN;
            q = biasedExponent - 1075;
        }
        return shortest(bits < 0, c, q);
    }

    /** Finds the shortest decimal in the rounding interval of c * 2^q and renders it. */
    private static String shortest(boolean negative, long c, int q) {
        // Bounds of the rounding interval, in units of 2^(q-2): the interval is closed when c is
        // even because round-half-even parsing then maps the bounds back to c.
        int open = (int) (c & 1);
        long cb = c << 2;
        long cbRight = cb + 2;
        long cbLeft;
        int k;
        if (c != C_MIN || q == Q_MIN) {
            cbLeft = cb - 2;
            k = floorLog10Pow2(q);
        } else {
            // a power of two: the next double down is only half as far away
            cbLeft = cb - 1;
            k = floorLog10ThreeQuartersPow2(q);
        }
        // k makes the scaled interval between 1 and 10 units wide: it holds at least one integer
        // and at most one multiple of ten.
        int i = k - K_MIN;
        long g1 = G_HIGH[i];
        long g0 = G_LOW[i];
        int h = q + FLOOR_LOG2_POW10_NEG_K[i] + 2;
        // four times v, the left bound and the right bound, scaled by 10^-k and rounded to odd
        long vb = scaleRoundToOdd(g1, g0, cb << h);
        long vbLeft = scaleRoundToOdd(g1, g0, cbLeft << h);
        long vbRight = scaleRoundToOdd(g1, g0, cbRight << h);

        long s = vb >> 2;
        // a multiple of ten in the interval has fewer digits than any other candidate
        long down10 = s / 10 * 10;
        long up10 = down10 + 10;
        if (vbLeft + open <= down10 << 2) {
            return render(negative, down10, k);
        }
        if ((up10 << 2) + open <= vbRight) {
            return render(negative, up10, k);
        }
        long t = s + 1;
        boolean sInside = vbLeft + open <= s << 2;
        boolean tInside = (t << 2) + open <= vbRight;
        if (sInside != tInside) {
            return render(negative, sInside ? s : t, k);
        }
        // both are as short: take the closer to v, the even one on a tie
        long midpoint = (s << 2) + 2;
        boolean pickS = vb < midpoint || vb == midpoint && (s & 1) == 0;
        return render(negative, pickS ? s : t, k);
    }

    /**
     * Returns floor(g * cp / 2^127) with its lowest bit set when the quotient is not an integer
     * ("round to odd"). Rounding to odd keeps comparisons against even integers exact, which is
     * all the candidate checks need.
     */
    private static long scaleRoundToOdd(long g1, long g0, long cp) {
        // g * cp / 2^127 = (g1 * cp * 2^63 + g0 * cp) / 2^127; cp is even, so g1 * cp loses no
        // bit to the halving below
        long x1 = Math.multiplyHigh(g0, cp);
        long y0 = g1 * cp;
        long y1 = Math.multiplyHigh(g1, cp);
        long z = (y0 >>> 1) + x1;
        long integral = y1 + (z >>> 63);
        long inexact = (z & LOW_63_BITS) == 0 ? 0 : 1;
        return integral | inexact;
    }

    /** floor(log10(2^q)); the product is never within 10^-4 of an integer over the double range. */
    static int floorLog10Pow2(int q) {
        return (int) Math.floor(q * LOG10_2);
    }

    /** floor(log10(3/4 * 2^q)); exact over the double range, like {@link #floorLog10Pow2}. */
    static int floorLog10ThreeQuartersPow2(int q) {
        return (int) Math.floor(q * LOG10_2 + LOG10_3_4);
    }

    /** Renders digits * 10^exponent the way ECMAScript's Number::toString lays it out. */
    private static String render(boolean negative, long digits, int exponent) {
        while (digits % 10 == 0) {
            digits /= 10;
            exponent++;
        }
        String s = Long.toString(digits);
        int k = s.length();
        int n = exponent + k; // the decimal point sits after the n-th digit
        StringBuilder out = new StringBuilder(k + 26);
        if (negative) {
            out.append('-');
        }
        if (k <= n && n <= 21) {
            out.append(s);
            out.append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(s, 0, n).append('.').append(s, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(s);
        } else {
            out.append(s.charAt(0));
            if (k > 1) {
                out.append('.').append(s, 1, k);
            }
            int e = n - 1;
            out.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
        }
        return out.toString();
    }
}
