package dev.idempotency.core;

import java.util.Arrays;

/**
 * The canonical form as it is being written: a growing array of UTF-8 bytes, and the one operation
 * that is not an append — putting the members of a finished object into RFC 8785 order.
 *
 * <p>Members are written in document order as {@code "name":value}; the parser records each one's
 * span ({@link #sortMembers}). An object whose members are already in order (every name smaller
 * than the next) is left as written, which is the common case; otherwise its members are sorted
 * and copied back once. Nested objects are complete, sorted and of their final length before their
 * parent's member spans are taken, so one pass bottom-up suffices.
 */
final class CanonicalOutput {

    private byte[] bytes;
    private int length;
    /** Where an unordered object's members are copied while they are put back in order. */
    private byte[] scratch;

    CanonicalOutput(int expectedLength) {
        bytes = new byte[Math.max(16, expectedLength)];
    }

    int length() {
        return length;
    }

    void put(byte b) {
        if (length == bytes.length) {
            grow(1);
        }
        bytes[length++] = b;
    }

    void put(byte[] source, int from, int count) {
        if (count > bytes.length - length) {
            grow(count);
        }
        System.arraycopy(source, from, bytes, length, count);
        length += count;
    }

    /** ASCII only: digits, signs, the point and the exponent of a number. */
    void putAscii(String s) {
        int count = s.length();
        if (count > bytes.length - length) {
            grow(count);
        }
        for (int i = 0; i < count; i++) {
            bytes[length++] = (byte) s.charAt(i);
        }
    }

    private void grow(int needed) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + needed));
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    // --- member order ---------------------------------------------------------------------------

    /** Ints per member in the span array: where its name's opening quote is, its closing quote, its end. */
    static final int SPAN = 3;

    /**
     * Puts the members of the object just written into canonical order, dropping all but the last
     * of duplicate names (what {@code JSON.parse} keeps).
     *
     * @param spans  {@code count} members from {@code first}, {@link #SPAN} ints each: the offset of the
     *               name's opening quote, of its closing quote, and the end of the member (exclusive);
     *               in document order, separated by single commas, the last one ending at
     *               {@link #length()}
     * @return {@code false} if two members have the same name and {@code rejectDuplicates} is set
     *     (the output is then unusable)
     */
    boolean sortMembers(int[] spans, int first, int count, boolean rejectDuplicates) {
        int firstOrderViolation = firstOrderViolation(spans, first, count);
        if (firstOrderViolation < 0) {
            return true;
        }
        if (rejectDuplicates && compareNames(spans, first, firstOrderViolation - 1, firstOrderViolation) == 0) {
            return false;
        }
        int[] order = sortedOrder(spans, first, count);
        for (int k = 0; k + 1 < count; k++) {
            if (compareNames(spans, first, order[k], order[k + 1]) == 0) {
                if (rejectDuplicates) {
                    return false;
                }
                order[k] = -1; // the sort is stable: the later duplicate follows, and it wins
            }
        }
        int regionStart = spans[first];
        int regionLength = length - regionStart;
        if (scratch == null || scratch.length < regionLength) {
            scratch = new byte[Math.max(regionLength, 256)];
        }
        System.arraycopy(bytes, regionStart, scratch, 0, regionLength);
        int write = regionStart;
        for (int member : order) {
            if (member < 0) {
                continue;
            }
            if (write != regionStart) {
                bytes[write++] = ',';
            }
            int start = spans[first + member * SPAN];
            int end = spans[first + member * SPAN + 2];
            System.arraycopy(scratch, start - regionStart, bytes, write, end - start);
            write += end - start;
        }
        length = write;
        return true;
    }

    /** The index of the first member not strictly greater than its predecessor, or -1. */
    private int firstOrderViolation(int[] spans, int first, int count) {
        for (int k = 1; k < count; k++) {
            if (compareNames(spans, first, k - 1, k) >= 0) {
                return k;
            }
        }
        return -1;
    }

    /** Member indexes in name order, equal names in document order (stable). */
    private int[] sortedOrder(int[] spans, int first, int count) {
        int[] order = new int[count];
        for (int k = 0; k < count; k++) {
            order[k] = k;
        }
        if (count <= 32) {
            // insertion sort: objects are small, and this needs neither boxing nor a comparator object
            for (int k = 1; k < count; k++) {
                int member = order[k];
                int j = k - 1;
                while (j >= 0 && compareNames(spans, first, order[j], member) > 0) {
                    order[j + 1] = order[j];
                    j--;
                }
                order[j + 1] = member;
            }
            return order;
        }
        Integer[] boxed = new Integer[count];
        for (int k = 0; k < count; k++) {
            boxed[k] = k;
        }
        Arrays.sort(boxed, (a, b) -> compareNames(spans, first, a, b)); // a stable merge sort
        for (int k = 0; k < count; k++) {
            order[k] = boxed[k];
        }
        return order;
    }

    private int compareNames(int[] spans, int first, int a, int b) {
        int aAt = first + a * SPAN;
        int bAt = first + b * SPAN;
        return compareNames(bytes, spans[aAt] + 1, spans[aAt + 1], spans[bAt] + 1, spans[bAt + 1]);
    }

    /**
     * Compares two member names, given as their canonical text (UTF-8, with RFC 8785 escapes and
     * without the quotes), by the UTF-16 code units of the strings they stand for — RFC 8785's
     * member order.
     *
     * <p>Byte order of UTF-8 is code point order, and code point order is UTF-16 order except
     * between U+E000..U+FFFF (three bytes, lead byte EE or EF) and the supplementary characters
     * (four bytes, lead byte F0..F4), whose surrogates D800..DFFF sort before E000: {@link #weight}
     * moves those two lead bytes above the others. Two names that agree up to a byte agree on the
     * lead byte of the character it belongs to, so continuation bytes are only ever compared with
     * each other, where byte order is right. Escapes (only {@code \"}, {@code \\}, the short control
     * escapes and <code>&#92;u00xx</code> occur in canonical text) are compared by the character they
     * stand for.
     */
    static int compareNames(byte[] text, int a, int aEnd, int b, int bEnd) {
        while (a < aEnd && b < bEnd) {
            byte x = text[a];
            byte y = text[b];
            if (x != '\\' && y != '\\') {
                if (x != y) {
                    return weight(x) - weight(y);
                }
                a++;
                b++;
                continue;
            }
            int cx = x == '\\' ? escapedChar(text, a) : weight(x);
            int cy = y == '\\' ? escapedChar(text, b) : weight(y);
            if (cx != cy) {
                return cx - cy;
            }
            // the same escaped character, hence the same escape
            a += escapeLength(text, a);
            b += escapeLength(text, b);
        }
        return (aEnd - a) - (bEnd - b);
    }

    private static int weight(byte b) {
        int unsigned = b & 0xFF;
        return unsigned == 0xEE || unsigned == 0xEF ? unsigned + 0x10 : unsigned;
    }

    private static int escapedChar(byte[] text, int backslash) {
        switch (text[backslash + 1]) {
            case 'b':
                return '\b';
            case 't':
                return '\t';
            case 'n':
                return '\n';
            case 'f':
                return '\f';
            case 'r':
                return '\r';
            case 'u':
                return Character.digit(text[backslash + 4], 16) << 4 | Character.digit(text[backslash + 5], 16);
            default:
                return text[backslash + 1]; // '"' or '\\'
        }
    }

    private static int escapeLength(byte[] text, int backslash) {
        return text[backslash + 1] == 'u' ? 6 : 2;
    }
}
