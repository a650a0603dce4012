package dev.idempotency.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Whether bytes are well-formed UTF-8 by RFC 3629 (the rules of Java's strict decoder): no stray
 * continuation byte, no overlong form, no encoded surrogate, nothing above U+10FFFF, nothing cut
 * short.
 *
 * <p>Jackson's byte parser checks only that continuation bytes look like continuation bytes, so
 * {@code C0 AF} (an overlong {@code /}) and {@code ED A0 80} (the surrogate D800) would decode to
 * characters; two bodies that no strict reader accepts could then canonicalize alike. The
 * canonicalizers run this check first.
 */
final class StrictUtf8 {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private StrictUtf8() {
    }

    static boolean isWellFormed(byte[] bytes) {
        int end = bytes.length;
        int p = 0;
        while (p < end) {
            // ASCII, the bulk of JSON, eight bytes at a time
            while (p <= end - Long.BYTES && ((long) LONGS.get(bytes, p) & HIGH_BITS) == 0) {
                p += Long.BYTES;
            }
            while (p < end && bytes[p] >= 0) {
                p++;
            }
            if (p == end) {
                return true;
            }
            p = afterMultiByteCharacter(bytes, p, end);
            if (p < 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the offset after the sequence starting with the non-ASCII byte at {@code p}, or -1 */
    private static int afterMultiByteCharacter(byte[] b, int p, int end) {
        int lead = b[p] & 0xFF;
        if (lead < 0xC2) {
            return -1; // a continuation byte, or the lead of an overlong two-byte form
        }
        if (lead < 0xE0) {
            return continues(b, p + 1, end, 0x80, 0xBF) ? p + 2 : -1;
        }
        if (lead < 0xF0) {
            // E0: no overlong three-byte form; ED: no surrogates D800..DFFF
            return continues(b, p + 1, end, lead == 0xE0 ? 0xA0 : 0x80, lead == 0xED ? 0x9F : 0xBF)
                    && continues(b, p + 2, end, 0x80, 0xBF) ? p + 3 : -1;
        }
        if (lead < 0xF5) {
            // F0: no overlong four-byte form; F4: nothing above U+10FFFF
            return continues(b, p + 1, end, lead == 0xF0 ? 0x90 : 0x80, lead == 0xF4 ? 0x8F : 0xBF)
                    && continues(b, p + 2, end, 0x80, 0xBF)
                    && continues(b, p + 3, end, 0x80, 0xBF) ? p + 4 : -1;
        }
        return -1;
    }

    private static boolean continues(byte[] b, int p, int end, int min, int max) {
        if (p >= end) {
            return false;
        }
        int c = b[p] & 0xFF;
        return c >= min && c <= max;
    }
}
