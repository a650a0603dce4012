package dev.idempotency.core;

import java.util.Arrays;

/**
 * The canonical form as it is being written, for {@link JsonCanonicalizer}: UTF-8 bytes, commas
 * between values, strings escaped as RFC 8785 wants them — and the one step that is not an append,
 * putting an object's members in order when it closes.
 *
 * <p>Members are written in document order and each one's span and name recorded. When the object
 * closes, one comparison per member tells whether they are already in order (then nothing moves);
 * otherwise the member indexes are sorted stably by name — by a packed prefix of four UTF-16 units,
 * then {@link String#compareTo}, which is exactly RFC 8785's order of UTF-16 code units — and the
 * members copied back once in that order.
 * Nested objects are finished, and of their final length, before their parent's members are
 * moved, so one pass bottom-up suffices. Nesting lives in arrays, not on the call stack.
 *
 * <p>Not thread-safe: one per thread, reused from body to body.
 */
final class CanonicalWriter {

    /** Buffers up to this size are kept for the next body; larger ones are dropped after it. */
    static final int RETAINED_BYTES = 16 * 1024;
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

    private byte[] bytes = new byte[256];
    private int length;

    /** Per open container: the index of its first member, or -1 for an array. */
    private int[] firstMember = new int[16];
    /** Per open container: whether a value (or member) has been written, i.e. a comma comes next. */
    private boolean[] hasValues = new boolean[16];
    private int depth;

    /** The members of all open objects, innermost last: name, its {@link #prefix}, start (the opening quote), end. */
    private String[] names = new String[16];
    private long[] prefixes = new long[16];
    private int[] starts = new int[16];
    private int[] ends = new int[16];
    private int members;
    /** How many entries of {@link #names} this body has filled, to be cleared after it. */
    private int namesUsed;

    /** Where an unordered object's members are copied while they are put back in order. */
    private byte[] scratch;
    private int[] order = new int[16];
    private char[] nameChars = new char[64];

    /**
     * The encoded {@code "name":} of recently written names, by hash: most bodies repeat a few
     * names many times (every element of an array of objects), and so do successive bodies.
     */
    private static final int NAME_CACHE_SIZE = 64;
    private static final int MAX_CACHED_NAME_LENGTH = 32;
    private final String[] cachedNames = new String[NAME_CACHE_SIZE];
    private final byte[][] cachedEncodings = new byte[NAME_CACHE_SIZE][];
    private final long[] cachedPrefixes = new long[NAME_CACHE_SIZE];

    /** Empties the writer and makes room for {@code expectedLength} bytes. */
    void start(int expectedLength) {
        length = 0;
        depth = 0;
        members = 0;
        if (bytes.length < expectedLength) {
            bytes = new byte[expectedLength];
        }
    }

    /** Lets go of what was grown for a large body, and of the body's names but the few in the name cache. */
    void finish() {
        if (bytes.length > RETAINED_BYTES) {
            bytes = new byte[256];
        }
        if (scratch != null && scratch.length > RETAINED_BYTES) {
            scratch = null;
        }
        if (names.length > RETAINED_BYTES / Integer.BYTES) {
            names = new String[16];
            prefixes = new long[16];
            starts = new int[16];
            ends = new int[16];
            order = new int[16];
        } else {
            Arrays.fill(names, 0, namesUsed, null); // the body's names are not kept
        }
        namesUsed = 0;
        if (nameChars.length > RETAINED_BYTES) {
            nameChars = new char[64];
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    // --- structure ------------------------------------------------------------------------------

    /** The comma before a value in an array; in an object {@link #name} wrote it. */
    private void beforeValue() {
        if (depth > 0 && firstMember[depth - 1] < 0) {
            if (hasValues[depth - 1]) {
                put((byte) ',');
            }
            hasValues[depth - 1] = true;
        }
    }

    void openObject() {
        beforeValue();
        push(members);
        put((byte) '{');
    }

    void openArray() {
        beforeValue();
        push(-1);
        put((byte) '[');
    }

    private void push(int first) {
        if (depth == firstMember.length) {
            firstMember = Arrays.copyOf(firstMember, depth * 2);
            hasValues = Arrays.copyOf(hasValues, depth * 2);
        }
        firstMember[depth] = first;
        hasValues[depth] = false;
        depth++;
    }

    void closeArray() {
        depth--;
        put((byte) ']');
    }

    /**
     * Closes the innermost object, its members put in order: by name, and members of the same name
     * in the order they came.
     *
     * @return {@code false} if two members have the same name and {@code rejectDuplicates} is set
     *     (the output is then unusable)
     */
    boolean closeObject(boolean rejectDuplicates) {
        depth--;
        int first = firstMember[depth];
        int count = members - first;
        if (count > 0) {
            ends[members - 1] = length;
        }
        if (count > 1 && !sortMembers(first, count, rejectDuplicates)) {
            return false;
        }
        members = first;
        put((byte) '}');
        return true;
    }

    /**
     * Writes a member's {@code "name":}; its value follows.
     *
     * @return {@code false} if the name holds an unpaired surrogate
     */
    boolean name(String name) {
        int top = depth - 1;
        if (hasValues[top]) {
            ends[members - 1] = length;
            put((byte) ',');
        }
        hasValues[top] = true;
        if (members == names.length) {
            names = Arrays.copyOf(names, members * 2);
            prefixes = Arrays.copyOf(prefixes, members * 2);
            starts = Arrays.copyOf(starts, members * 2);
            ends = Arrays.copyOf(ends, members * 2);
        }
        names[members] = name;
        starts[members] = length;
        int hash = name.hashCode();
        int slot = (hash ^ hash >>> 16) & (NAME_CACHE_SIZE - 1);
        if (name.equals(cachedNames[slot])) {
            // the usual case: a name seen before (Jackson hands out one String per name)
            byte[] encoded = cachedEncodings[slot];
            put(encoded, encoded.length);
            prefixes[members] = cachedPrefixes[slot];
        } else {
            int n = name.length();
            if (nameChars.length < n) {
                nameChars = new char[Math.max(n, nameChars.length * 2)];
            }
            name.getChars(0, n, nameChars, 0);
            if (!putString(nameChars, 0, n)) {
                return false;
            }
            put((byte) ':');
            prefixes[members] = prefix(name);
            if (n <= MAX_CACHED_NAME_LENGTH) {
                cachedNames[slot] = name;
                cachedEncodings[slot] = Arrays.copyOfRange(bytes, starts[members], length);
                cachedPrefixes[slot] = prefixes[members];
            }
        }
        members++;
        namesUsed = Math.max(namesUsed, members);
        return true;
    }

    /**
     * The first four UTF-16 units of a name, packed big-endian, zeros after a shorter name: where
     * two prefixes differ, their unsigned order is the names' order; where they are equal, only
     * the names themselves can tell.
     */
    private static long prefix(String name) {
        long prefix = 0;
        for (int i = 0; i < 4; i++) {
            prefix = prefix << 16 | (i < name.length() ? name.charAt(i) : 0);
        }
        return prefix;
    }

    /** Members {@code a} and {@code b} by name, UTF-16 code units. */
    private int compare(int a, int b) {
        int byPrefix = Long.compareUnsigned(prefixes[a], prefixes[b]);
        return byPrefix != 0 ? byPrefix : names[a].compareTo(names[b]);
    }

    // --- member order ---------------------------------------------------------------------------

    private boolean sortMembers(int first, int count, boolean rejectDuplicates) {
        boolean inOrder = true;
        for (int m = first + 1; m < first + count; m++) {
            int byName = compare(m - 1, m);
            if (byName == 0 && rejectDuplicates) {
                return false;
            }
            inOrder &= byName <= 0; // equal names in arrival order are in (stable) order already
        }
        if (inOrder) {
            return true;
        }
        if (order.length < count) {
            order = new int[Math.max(count, order.length * 2)];
        }
        sort(first, count);
        if (rejectDuplicates) {
            for (int k = 1; k < count; k++) {
                if (compare(order[k - 1], order[k]) == 0) {
                    return false;
                }
            }
        }
        int regionStart = starts[first];
        int regionLength = length - regionStart;
        if (scratch == null || scratch.length < regionLength) {
            scratch = new byte[Math.max(regionLength, 256)];
        }
        System.arraycopy(bytes, regionStart, scratch, 0, regionLength);
        int write = regionStart;
        for (int k = 0; k < count; k++) {
            if (k > 0) {
                bytes[write++] = ',';
            }
            int member = order[k];
            int size = ends[member] - starts[member];
            System.arraycopy(scratch, starts[member] - regionStart, bytes, write, size);
            write += size;
        }
        return true; // same bytes, other order: the length is unchanged
    }

    /** Puts the member indexes {@code first..first+count-1} into {@link #order} by name, stably. */
    private void sort(int first, int count) {
        int[] order = this.order;
        for (int k = 0; k < count; k++) {
            order[k] = first + k;
        }
        if (count <= 32) {
            for (int k = 1; k < count; k++) {
                int member = order[k];
                int j = k - 1;
                while (j >= 0 && compare(order[j], member) > 0) {
                    order[j + 1] = order[j];
                    j--;
                }
                order[j + 1] = member;
            }
            return;
        }
        Integer[] boxed = new Integer[count];
        for (int k = 0; k < count; k++) {
            boxed[k] = first + k;
        }
        Arrays.sort(boxed, this::compare); // a stable merge sort
        for (int k = 0; k < count; k++) {
            order[k] = boxed[k];
        }
    }

    // --- scalars --------------------------------------------------------------------------------

    /** @return {@code false} if the string holds an unpaired surrogate */
    boolean string(char[] text, int offset, int count) {
        beforeValue();
        return putString(text, offset, count);
    }

    /** A literal ({@code true}, {@code false}, {@code null}) or the text of a number, ASCII only. */
    void value(byte[] ascii) {
        beforeValue();
        put(ascii, ascii.length);
    }

    /** Starts a number value; its characters follow through the {@code putAscii} methods. */
    void number() {
        beforeValue();
    }

    void putAscii(char c) {
        put((byte) c);
    }

    void putAscii(char[] text, int offset, int count) {
        ensure(count);
        byte[] b = bytes;
        int w = length;
        for (int i = 0; i < count; i++) {
            b[w++] = (byte) text[offset + i];
        }
        length = w;
    }

    void putAscii(String s) {
        int count = s.length();
        ensure(count);
        for (int i = 0; i < count; i++) {
            bytes[length++] = (byte) s.charAt(i);
        }
    }

    /**
     * The RFC 8785 form of a string (section 3.2.2.2): UTF-8, with only the quote, the backslash
     * and the controls escaped — {@code \b \t \n \f \r} short, others as lowercase
     * <code>&#92;u00xx</code>.
     */
    private boolean putString(char[] text, int offset, int count) {
        put((byte) '"');
        int end = offset + count;
        int i = offset;
        while (i < end) {
            // room for a chunk of characters at three bytes each (a surrogate pair is four bytes
            // for two), plus what escapes in it need beyond that, checked where they occur
            int chunkEnd = Math.min(end, i + 4096);
            ensure(3 * (chunkEnd - i) + 1);
            byte[] b = bytes;
            int w = length;
            for (; i < chunkEnd; i++) {
                char c = text[i];
                if (c < 0x80) {
                    if (c >= 0x20 && c != '"' && c != '\\') {
                        b[w++] = (byte) c;
                        continue;
                    }
                    if (b.length - w < 6 + 3 * (chunkEnd - i)) {
                        length = w;
                        grow(6 + 3 * (chunkEnd - i));
                        b = bytes;
                    }
                    w = escape(b, w, c);
                } else if (c < 0x800) {
                    b[w++] = (byte) (0xC0 | c >> 6);
                    b[w++] = (byte) (0x80 | c & 0x3F);
                } else if (!Character.isSurrogate(c)) {
                    b[w++] = (byte) (0xE0 | c >> 12);
                    b[w++] = (byte) (0x80 | c >> 6 & 0x3F);
                    b[w++] = (byte) (0x80 | c & 0x3F);
                } else {
                    // the parser hands escapes over as they are: a lone \ud800 arrives unpaired
                    if (!Character.isHighSurrogate(c) || i + 1 == end || !Character.isLowSurrogate(text[i + 1])) {
                        return false;
                    }
                    if (i + 1 == chunkEnd) {
                        chunkEnd++; // keep the pair together: three bytes reserved for the high half, one spare
                    }
                    int codePoint = Character.toCodePoint(c, text[++i]);
                    b[w++] = (byte) (0xF0 | codePoint >> 18);
                    b[w++] = (byte) (0x80 | codePoint >> 12 & 0x3F);
                    b[w++] = (byte) (0x80 | codePoint >> 6 & 0x3F);
                    b[w++] = (byte) (0x80 | codePoint & 0x3F);
                }
            }
            length = w;
        }
        put((byte) '"');
        return true;
    }

    private static int escape(byte[] b, int w, char c) {
        b[w++] = '\\';
        switch (c) {
            case '"':
            case '\\':
                b[w++] = (byte) c;
                break;
            case '\b':
                b[w++] = 'b';
                break;
            case '\t':
                b[w++] = 't';
                break;
            case '\n':
                b[w++] = 'n';
                break;
            case '\f':
                b[w++] = 'f';
                break;
            case '\r':
                b[w++] = 'r';
                break;
            default:
                b[w++] = 'u';
                b[w++] = '0';
                b[w++] = '0';
                b[w++] = HEX[c >> 4];
                b[w++] = HEX[c & 0xF];
        }
        return w;
    }

    // --- bytes ----------------------------------------------------------------------------------

    private void put(byte b) {
        if (length == bytes.length) {
            grow(1);
        }
        bytes[length++] = b;
    }

    private void put(byte[] source, int count) {
        ensure(count);
        System.arraycopy(source, 0, bytes, length, count);
        length += count;
    }

    private void ensure(int count) {
        if (count > bytes.length - length) {
            grow(count);
        }
    }

    private void grow(int needed) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + needed));
    }
}
