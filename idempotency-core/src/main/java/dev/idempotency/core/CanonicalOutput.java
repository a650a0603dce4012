package dev.idempotency.core;

import java.util.Arrays;

/**
 * The canonical form as it is being written: a growing array of UTF-8 bytes, and the one operation
 * that is not an append — putting the members of a finished object into RFC 8785 order.
 *
 * <p>Members are written in document order as {@code "name":value}; the parser records each one's
 * span ({@link #sortMembers}). An object whose members are already in order (every name smaller
 * than the next) is left as written, at the cost of one comparison per member; otherwise its
 * members are sorted and copied back once. Nested objects are complete, sorted and of their final length before their
 * parent's member spans are taken, so one pass bottom-up suffices.
 */
final class CanonicalOutput {

    /** The bytes written so far are {@code bytes[0, length)}; the parser's string loop writes here directly. */
    byte[] bytes;
    int length;
    /** Where an unordered object's members are copied while they are put back in order. */
    private byte[] scratch;
    /** The members of the object being sorted, in their new order; reused from object to object. */
    private int[] order = new int[16];
    private long[] packed = new long[16];

    /** Buffers up to this size are kept for the next body; larger ones are dropped after use. */
    static final int RETAINED_BYTES = 16 * 1024;

    CanonicalOutput() {
        bytes = new byte[256];
    }

    /** Empties the output and makes room for {@code expectedLength} bytes. */
    void start(int expectedLength) {
        length = 0;
        if (bytes.length < expectedLength) {
            bytes = new byte[expectedLength];
        }
    }

    /** Lets go of buffers grown for a large body. */
    void finish() {
        if (bytes.length > RETAINED_BYTES) {
            bytes = new byte[256];
        }
        if (scratch != null && scratch.length > RETAINED_BYTES) {
            scratch = null;
        }
        if (order.length > RETAINED_BYTES / Integer.BYTES) {
            order = new int[16];
            packed = new long[16];
        }
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

    /** Makes room for {@code count} more bytes. */
    void ensure(int count) {
        if (count > bytes.length - length) {
            grow(count);
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
    boolean sortMembers(int[] spans, long[] prefixes, int first, int count, boolean rejectDuplicates) {
        Names names = new Names(spans, prefixes, first);
        if (names.inOrder(count)) {
            return true;
        }
        if (order.length < count) {
            order = new int[Math.max(count, order.length * 2)];
        }
        boolean mayHaveDuplicates = sort(names, order, count);
        if (mayHaveDuplicates && !dropDuplicates(names, order, count, rejectDuplicates)) {
            return false;
        }
        int regionStart = spans[first];
        int regionLength = length - regionStart;
        if (scratch == null || scratch.length < regionLength) {
            scratch = new byte[Math.max(regionLength, 256)];
        }
        System.arraycopy(bytes, regionStart, scratch, 0, regionLength);
        int write = regionStart;
        for (int k = 0; k < count; k++) {
            int member = order[k];
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

    /**
     * Marks all but the last of equal names with -1 (the sort is stable: the later duplicate
     * follows, and it wins), or returns {@code false} on the first duplicate if they are rejected.
     */
    private boolean dropDuplicates(Names names, int[] order, int count, boolean rejectDuplicates) {
        for (int k = 0; k + 1 < count; k++) {
            if (names.compare(order[k], order[k + 1]) == 0) {
                if (rejectDuplicates) {
                    return false;
                }
                order[k] = -1;
            }
        }
        return true;
    }

    /** Objects up to this many members are sorted as packed {@code long}s, see {@link #sort}. */
    private static final int PACKED_SORT_LIMIT = 256;

    /**
     * Puts the member indexes {@code 0..count-1} into {@code order} in name order, equal names in
     * document order (stable).
     *
     * <p>Up to {@value #PACKED_SORT_LIMIT} members, each is packed into one {@code long}: the first
     * seven bytes of its name prefix, sign bit flipped so that signed order is the prefixes'
     * unsigned order, and its index in the low byte, so that equal prefixes keep document order.
     * A primitive sort of those is much cheaper than sorting indexes with a comparator; only runs of
     * members whose first seven characters agree are then put in order by their full names, and
     * only such members can have equal names.
     *
     * @return whether some neighbours in the new order may have equal names
     */
    private boolean sort(Names names, int[] order, int count) {
        if (count > PACKED_SORT_LIMIT) {
            sortLarge(names, order, count);
            return true;
        }
        if (packed.length < count) {
            packed = new long[Math.max(count, packed.length * 2)];
        }
        long[] packed = this.packed;
        for (int k = 0; k < count; k++) {
            packed[k] = (names.prefix(k) ^ Long.MIN_VALUE) & ~0xFFL | k;
        }
        if (count <= 16) {
            insertionSort(packed, count); // what Arrays.sort does for so few, without its dispatch
        } else {
            Arrays.sort(packed, 0, count);
        }
        boolean ties = false;
        order[0] = (int) (packed[0] & 0xFF);
        for (int k = 1; k < count; k++) {
            order[k] = (int) (packed[k] & 0xFF);
            ties |= (packed[k] ^ packed[k - 1]) >>> 8 == 0;
        }
        if (!ties) {
            return false;
        }
        for (int runStart = 0; runStart < count; ) {
            int runEnd = runStart + 1;
            while (runEnd < count && (packed[runEnd] ^ packed[runStart]) >>> 8 == 0) {
                runEnd++;
            }
            if (runEnd - runStart > 1) {
                insertionSort(names, order, runStart, runEnd);
            }
            runStart = runEnd;
        }
        return true;
    }

    /** Objects too large for the packed sort: their member indexes, boxed, by a stable merge sort. */
    private static void sortLarge(Names names, int[] order, int count) {
        Integer[] boxed = new Integer[count];
        for (int k = 0; k < count; k++) {
            boxed[k] = k;
        }
        Arrays.sort(boxed, names::compare);
        for (int k = 0; k < count; k++) {
            order[k] = boxed[k];
        }
    }

    private static void insertionSort(long[] values, int count) {
        for (int k = 1; k < count; k++) {
            long value = values[k];
            int j = k - 1;
            while (j >= 0 && values[j] > value) {
                values[j + 1] = values[j];
                j--;
            }
            values[j + 1] = value;
        }
    }

    /** Stable; the run is short: names that agree in their first seven characters. */
    private static void insertionSort(Names names, int[] order, int from, int to) {
        for (int k = from + 1; k < to; k++) {
            int member = order[k];
            int j = k - 1;
            while (j >= from && names.compare(order[j], member) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = member;
        }
    }

    /** The names of one object's members, compared by their prefixes first. */
    private final class Names {
        private final int[] spans;
        private final long[] prefixes;
        private final int first;
        private final int firstPrefix;

        Names(int[] spans, long[] prefixes, int first) {
            this.spans = spans;
            this.prefixes = prefixes;
            this.first = first;
            this.firstPrefix = first / SPAN;
        }

        long prefix(int member) {
            return prefixes[firstPrefix + member];
        }

        /** Whether every name is greater than the one before it: nothing to do. */
        boolean inOrder(int count) {
            for (int k = 1; k < count; k++) {
                int byPrefix = Long.compareUnsigned(prefix(k - 1), prefix(k));
                if (byPrefix > 0 || byPrefix == 0 && compare(k - 1, k) >= 0) {
                    return false;
                }
            }
            return true;
        }

        int compare(int a, int b) {
            int byPrefix = Long.compareUnsigned(prefix(a), prefix(b));
            if (byPrefix != 0) {
                return byPrefix;
            }
            int aAt = first + a * SPAN;
            int bAt = first + b * SPAN;
            return compareNames(bytes, spans[aAt] + 1, spans[aAt + 1], spans[bAt] + 1, spans[bAt + 1]);
        }
    }

    /**
     * The first eight characters of a name as {@link #compareNames} sees them, one byte each, packed
     * big-endian and padded with zeros: two prefixes compared as unsigned numbers order their names
     * as {@code compareNames} does, unless they are equal (then the names must be compared in full).
     * A zero byte of padding ties with a real U+0000 and never decides; most names differ early,
     * so most comparisons of a sort are one comparison of two longs.
     */
    static long namePrefix(byte[] text, int from, int to) {
        int length = to - from;
        if (text.length - from >= Long.BYTES) {
            // the common case, a name starting with eight (or all its) printable ASCII bytes: those
            // bytes are the prefix as they are
            long word = (long) CanonicalJsonParser.LONGS.get(text, from);
            if (CanonicalJsonParser.plainAsciiBytes(word) >= Math.min(length, Long.BYTES)) {
                long ownBytes = length >= Long.BYTES ? word : word & (1L << 8 * length) - 1;
                return Long.reverseBytes(ownBytes); // the first byte becomes the most significant
            }
        }
        long prefix = 0;
        int characters = 0;
        int p = from;
        while (characters < 8 && p < to) {
            byte b = text[p];
            if (b == '\\') {
                prefix = prefix << 8 | escapedChar(text, p);
                p += escapeLength(text, p);
            } else {
                prefix = prefix << 8 | weight(b);
                p++;
            }
            characters++;
        }
        return characters == 0 ? 0 : prefix << 8 * (8 - characters);
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
