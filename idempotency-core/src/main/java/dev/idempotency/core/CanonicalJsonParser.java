package dev.idempotency.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One pass over a body's UTF-8 bytes that checks it is a single JSON value and writes its RFC 8785
 * canonical form as it goes, for {@link JcsCanonicalizer}; one instance per thread, reused.
 *
 * <p>It accepts exactly what the canonicalizer accepted when it was built on Jackson's char parser
 * over a strictly decoded copy of the body (the differential tests hold it to that): strict RFC 8259
 * syntax in well-formed UTF-8 (RFC 3629: no overlong forms, no encoded surrogates, nothing above
 * U+10FFFF), only space, tab, line feed and carriage return between tokens, no byte order mark, no
 * unpaired surrogate escapes, finite numbers, and Jackson's default {@code StreamReadConstraints}:
 * at most {@value #MAX_DEPTH} levels of nesting, {@value #MAX_NUMBER_DIGITS} digits per number,
 * {@value #MAX_NAME_CHARS} UTF-16 units per member name and {@value #MAX_STRING_CHARS} per string.
 *
 * <p>What it writes needs no second look: strings without escapes are copied in runs (valid UTF-8
 * is its own canonical form), numbers already in ECMAScript form mostly pass through
 * ({@link EcmaScriptNumbers#appendCanonical}), and each object's members are put in order when it
 * closes ({@link CanonicalOutput#sortMembers}). Nesting is tracked in arrays, not on the call stack.
 */
final class CanonicalJsonParser {

    static final int MAX_DEPTH = 1000;
    static final int MAX_NUMBER_DIGITS = 1000;
    static final int MAX_NAME_CHARS = 50_000;
    static final int MAX_STRING_CHARS = 20_000_000;

    /**
     * Thrown for any body that is not canonicalizable. Malformed input is an expected outcome, not
     * a bug, so the exception is shared and carries no stack trace: failing stays cheap.
     */
    static final class NotCanonicalizable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private NotCanonicalizable() {
            super("not canonicalizable JSON", null, false, false);
        }
    }

    private static final NotCanonicalizable INVALID = new NotCanonicalizable();
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /**
     * One parser per thread, its buffers reused from body to body: for the small bodies most
     * requests carry, allocating and zeroing them again was a visible part of the cost. Buffers
     * grown beyond {@link CanonicalOutput#RETAINED_BYTES} for a large body are let go after it.
     */
    private static final ThreadLocal<CanonicalJsonParser> PER_THREAD = ThreadLocal.withInitial(CanonicalJsonParser::new);

    private byte[] in;
    private int end;
    private boolean rejectDuplicateNames;
    private final CanonicalOutput out = new CanonicalOutput();
    private int pos;

    /** Per open container: the index of its first member span in {@link #spans}, or -1 for an array. */
    private int[] openSpans = new int[16];
    private int depth;
    /** The member spans of all open objects, {@link CanonicalOutput#SPAN} ints each, innermost last. */
    private int[] spans = new int[16 * CanonicalOutput.SPAN];
    /** Per member span: its name's {@link CanonicalOutput#namePrefix}, for fast sorting. */
    private long[] namePrefixes = new long[16];
    private int spanCount;

    private CanonicalJsonParser() {
    }

    /**
     * @return the canonical UTF-8 bytes of {@code body}
     * @throws NotCanonicalizable if it is not a single I-JSON value within the limits above, or
     *     (with {@code rejectDuplicateNames}) has an object with a repeated member name
     */
    static byte[] canonicalize(byte[] body, boolean rejectDuplicateNames) {
        CanonicalJsonParser parser = PER_THREAD.get();
        parser.in = body;
        parser.end = body.length;
        parser.rejectDuplicateNames = rejectDuplicateNames;
        parser.pos = 0;
        parser.depth = 0;
        parser.spanCount = 0;
        // Room for a canonical form as long as the body, plus what string() reserves beyond it
        // (numbers alone can make the form longer; the output grows then).
        parser.out.start(body.length + 2 + 2 * Long.BYTES);
        try {
            parser.document();
            return parser.out.toByteArray();
        } finally {
            parser.finish();
        }
    }

    /** Lets go of the body, and of the bookkeeping grown for a very large object. */
    private void finish() {
        in = null;
        out.finish();
        if (spans.length > CanonicalOutput.RETAINED_BYTES / Integer.BYTES) {
            spans = new int[16 * CanonicalOutput.SPAN];
            namePrefixes = new long[16];
        }
    }

    private void document() {
        pos = skipWhitespace(0);
        while (true) {
            if (value()) {
                continue; // a container opened: its first value follows
            }
            if (!afterValue()) {
                return;
            }
        }
    }

    /**
     * Writes the value at {@link #pos}; for a container only its opening (and its first member's
     * name), since its contents follow in the main loop.
     *
     * @return whether a container was opened and still needs its first value
     */
    private boolean value() {
        if (pos >= end) {
            throw INVALID;
        }
        switch (in[pos]) {
            case '{':
                return openObject();
            case '[':
                return openArray();
            case '"':
                string(MAX_STRING_CHARS);
                return false;
            case 't':
                literal(TRUE);
                return false;
            case 'f':
                literal(FALSE);
                return false;
            case 'n':
                literal(NULL);
                return false;
            default:
                number();
                return false;
        }
    }

    /**
     * Consumes what follows a complete value: a comma and the next member name or element, or the
     * end of its container (then of its parent, and so on), or the end of the document.
     *
     * @return whether another value follows
     */
    private boolean afterValue() {
        while (true) {
            pos = skipWhitespace(pos);
            if (depth == 0) {
                if (pos != end) {
                    throw INVALID; // anything but whitespace after the root value
                }
                return false;
            }
            if (pos >= end) {
                throw INVALID;
            }
            byte b = in[pos++];
            boolean inObject = openSpans[depth - 1] >= 0;
            if (inObject) {
                spans[spanCount - 1] = out.length(); // the member that just ended
            }
            if (b == ',') {
                out.put(b);
                pos = skipWhitespace(pos);
                if (inObject) {
                    memberName();
                }
                return true;
            }
            if (b == (inObject ? '}' : ']')) {
                if (inObject) {
                    closeObject();
                }
                out.put(b);
                depth--;
                continue;
            }
            throw INVALID;
        }
    }

    private boolean openObject() {
        enter(spanCount);
        out.put((byte) '{');
        pos = skipWhitespace(pos + 1);
        if (pos < end && in[pos] == '}') {
            pos++;
            out.put((byte) '}');
            depth--;
            return false;
        }
        memberName();
        return true;
    }

    private boolean openArray() {
        enter(-1);
        out.put((byte) '[');
        pos = skipWhitespace(pos + 1);
        if (pos < end && in[pos] == ']') {
            pos++;
            out.put((byte) ']');
            depth--;
            return false;
        }
        return true;
    }

    private void enter(int firstSpan) {
        if (depth == MAX_DEPTH) {
            throw INVALID;
        }
        if (depth == openSpans.length) {
            openSpans = Arrays.copyOf(openSpans, depth * 2);
        }
        openSpans[depth++] = firstSpan;
    }

    /** Writes {@code "name":} and opens its span; the value follows. */
    private void memberName() {
        if (pos >= end || in[pos] != '"') {
            throw INVALID;
        }
        if (spanCount + CanonicalOutput.SPAN > spans.length) {
            spans = Arrays.copyOf(spans, spans.length * 2);
            namePrefixes = Arrays.copyOf(namePrefixes, namePrefixes.length * 2);
        }
        int nameStart = out.length();
        string(MAX_NAME_CHARS);
        int nameEnd = out.length() - 1; // the closing quote
        spans[spanCount] = nameStart;
        spans[spanCount + 1] = nameEnd;
        namePrefixes[spanCount / CanonicalOutput.SPAN] = CanonicalOutput.namePrefix(out.bytes, nameStart + 1, nameEnd);
        spanCount += CanonicalOutput.SPAN;
        pos = skipWhitespace(pos);
        if (pos >= end || in[pos] != ':') {
            throw INVALID;
        }
        pos = skipWhitespace(pos + 1);
        out.put((byte) ':');
    }

    private void closeObject() {
        int first = openSpans[depth - 1];
        int count = (spanCount - first) / CanonicalOutput.SPAN;
        if (!out.sortMembers(spans, namePrefixes, first, count, rejectDuplicateNames)) {
            throw INVALID; // a duplicate name in strict mode
        }
        spanCount = first;
    }

    private int skipWhitespace(int p) {
        if (p < end && in[p] > ' ') {
            return p; // the usual case: compact JSON
        }
        while (p < end) {
            byte b = in[p];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                break;
            }
            p++;
        }
        return p;
    }

    private void literal(byte[] word) {
        if (end - pos < word.length) {
            throw INVALID;
        }
        for (int i = 1; i < word.length; i++) {
            if (in[pos + i] != word[i]) {
                throw INVALID;
            }
        }
        out.put(word, 0, word.length);
        pos += word.length;
        // "truex" and the like fail in afterValue: nothing but a separator may follow a value
    }

    // --- numbers --------------------------------------------------------------------------------

    /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}, checked, then written canonically. */
    private void number() {
        int start = pos;
        int p = pos;
        if (p < end && in[p] == '-') {
            p++;
        }
        int intStart = p;
        if (p < end && in[p] == '0') {
            p++;
            if (p < end && isDigit(in[p])) {
                throw INVALID; // a leading zero
            }
        } else {
            p = digits(p);
            if (p == intStart) {
                throw INVALID; // not a value at all, or a sign without digits
            }
        }
        int intEnd = p;
        int fractionStart = p;
        int fractionEnd = p;
        if (p < end && in[p] == '.') {
            fractionStart = p + 1;
            fractionEnd = digits(fractionStart);
            if (fractionEnd == fractionStart) {
                throw INVALID;
            }
            p = fractionEnd;
        }
        int exponentDigits = 0;
        if (p < end && (in[p] == 'e' || in[p] == 'E')) {
            p++;
            if (p < end && (in[p] == '+' || in[p] == '-')) {
                p++;
            }
            int exponentStart = p;
            p = digits(p);
            exponentDigits = p - exponentStart;
            if (exponentDigits == 0) {
                throw INVALID;
            }
        }
        pos = p;
        checkNumberLength(in[intStart] == '0', intEnd - intStart, fractionEnd - fractionStart,
                fractionEnd > intEnd, exponentDigits);
        if (exponentDigits == 0
                && EcmaScriptNumbers.appendCanonical(in, start, intStart, intEnd, fractionStart, fractionEnd, out)) {
            return;
        }
        double value = Double.parseDouble(new String(in, start, p - start, StandardCharsets.ISO_8859_1));
        if (!Double.isFinite(value)) {
            throw INVALID;
        }
        out.putAscii(EcmaScriptNumbers.format(value));
    }

    /**
     * Jackson's limit on the digits of a number ({@code StreamReadConstraints.maxNumberLength}), as
     * its char parser counts them: the digits of the integer part, or for a number with fraction or
     * exponent the digits of all three parts — except that on its second code path (numbers with a
     * leading zero, and numbers ending the input) a missing fraction or exponent counts as -1 digits
     * rather than 0. Reproduced, odd as it is, so that exactly the same bodies fall back to raw bytes.
     */
    private void checkNumberLength(boolean leadingZero, int intDigits, int fractionDigits, boolean hasFraction,
                                   int exponentDigits) {
        boolean hasExponent = exponentDigits > 0;
        int counted = intDigits;
        if (hasFraction || hasExponent) {
            boolean secondPath = leadingZero || pos == end;
            int missing = secondPath ? -1 : 0;
            counted += (hasFraction ? fractionDigits : missing) + (hasExponent ? exponentDigits : missing);
        }
        if (counted > MAX_NUMBER_DIGITS) {
            throw INVALID;
        }
    }

    private int digits(int p) {
        while (p < end && isDigit(in[p])) {
            p++;
        }
        return p;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    // --- strings --------------------------------------------------------------------------------

    /**
     * Writes the string at {@link #pos} in canonical form. Strings of up to 15 printable ASCII
     * bytes — most names and many values — are done here, from two words, in a method small enough
     * for the JIT to inline; everything else goes to {@link #anyString}.
     */
    private void string(int maxChars) {
        int start = pos + 1;
        if (start <= end - 2 * Long.BYTES) {
            long first = (long) LONGS.get(in, start);
            int plain = plainAsciiBytes(first);
            long second = 0;
            if (plain == Long.BYTES) {
                second = (long) LONGS.get(in, start + Long.BYTES);
                plain += plainAsciiBytes(second);
            }
            if (plain < 2 * Long.BYTES && in[start + plain] == '"') {
                out.ensure(plain + 2 + 2 * Long.BYTES);
                byte[] o = out.bytes;
                int w = out.length;
                o[w] = '"';
                // whole words: what lies beyond the string is overwritten next or beyond the length
                LONGS.set(o, w + 1, first);
                LONGS.set(o, w + 1 + Long.BYTES, second);
                o[w + 1 + plain] = '"';
                out.length = w + 2 + plain;
                pos = start + plain + 1;
                return;
            }
        }
        anyString(maxChars);
    }

    /**
     * Writes the string at {@link #pos} in canonical form: runs without escapes are copied as they
     * are (after checking their UTF-8), escapes are rewritten as RFC 8785 wants them.
     */
    private void anyString(int maxChars) {
        int start = ++pos; // after the opening quote
        int p = start;
        // The canonical form of a string is never longer than its text (escapes only shrink or
        // stay), so with this much room the loop can write without checking for space; the eight
        // bytes more let it copy whole words.
        out.ensure(end - start + 2 + Long.BYTES);
        byte[] o = out.bytes;
        int w = out.length;
        o[w++] = '"';
        while (true) {
            // Eight bytes at a time while they are printable ASCII, the bulk of most bodies. The
            // word is copied whole (there is room, see above) and the length advanced only past
            // its plain bytes; the first other byte is then handled below.
            while (p <= end - Long.BYTES) {
                long word = (long) LONGS.get(in, p);
                LONGS.set(o, w, word);
                int plain = plainAsciiBytes(word);
                p += plain;
                w += plain;
                if (plain < Long.BYTES) {
                    break;
                }
            }
            if (p >= end) {
                throw INVALID; // unterminated
            }
            byte b = in[p];
            if (b >= 0x20 && b != '"' && b != '\\') {
                o[w++] = b; // printable ASCII near the end of the body
                p++;
            } else if (b == '"') {
                break;
            } else if (b == '\\') {
                out.length = w;
                p = escape(p);
                o = out.bytes;
                w = out.length;
            } else if (b < 0) {
                int next = multiByteCharacter(p);
                while (p < next) {
                    o[w++] = in[p++]; // well-formed UTF-8 is its own canonical form
                }
            } else {
                throw INVALID; // a raw control character
            }
        }
        o[w++] = '"';
        out.length = w;
        // decoding never makes text longer in UTF-16 units than in bytes: only long text needs counting
        if (p - start > maxChars && utf16Length(start, p) > maxChars) {
            throw INVALID;
        }
        pos = p + 1;
    }

    /** A little-endian view of eight bytes: the first byte of the text is the lowest of the long. */
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * How many of the eight bytes of {@code word}, from its first (lowest) one, are printable ASCII
     * other than quote and backslash — bytes a string copies unchanged.
     *
     * <p>The bit tricks are the classic ones ("Bit Twiddling Hacks", S. E. Anderson: {@code hasless},
     * {@code haszero}): {@code (x - ONES * n) & ~x & HIGH_BITS} has the high bit of the lowest byte
     * below {@code n} set, and a byte equal to {@code c} is a zero byte of {@code x ^ ONES * c}.
     * Borrows can mark bytes above the first marked one too, never below it, so the lowest marked
     * byte is exactly the first byte that is not plain.
     */
    static int plainAsciiBytes(long word) {
        long control = word - ONES * 0x20 & ~word;
        long quote = word ^ ONES * '"';
        quote = quote - ONES & ~quote;
        long backslash = word ^ ONES * '\\';
        backslash = backslash - ONES & ~backslash;
        long notPlain = (control | quote | backslash | word) & HIGH_BITS; // word: non-ASCII bytes
        return Long.numberOfTrailingZeros(notPlain) >>> 3; // 8 when all are plain
    }

    /**
     * Checks the UTF-8 sequence starting with a non-ASCII byte at {@code p} as Java's strict decoder
     * does (RFC 3629 table 3-7): no continuation byte first, no overlong form, no surrogate, nothing
     * above U+10FFFF, nothing cut short.
     *
     * @return the offset after it
     */
    private int multiByteCharacter(int p) {
        int lead = in[p] & 0xFF;
        if (lead < 0xC2) {
            throw INVALID; // a continuation byte, or an overlong two-byte form
        }
        if (lead < 0xE0) {
            continuation(p + 1, 0x80, 0xBF);
            return p + 2;
        }
        if (lead < 0xF0) {
            continuation(p + 1, lead == 0xE0 ? 0xA0 : 0x80, lead == 0xED ? 0x9F : 0xBF);
            continuation(p + 2, 0x80, 0xBF);
            return p + 3;
        }
        if (lead < 0xF5) {
            continuation(p + 1, lead == 0xF0 ? 0x90 : 0x80, lead == 0xF4 ? 0x8F : 0xBF);
            continuation(p + 2, 0x80, 0xBF);
            continuation(p + 3, 0x80, 0xBF);
            return p + 4;
        }
        throw INVALID;
    }

    private void continuation(int p, int min, int max) {
        if (p >= end) {
            throw INVALID;
        }
        int b = in[p] & 0xFF;
        if (b < min || b > max) {
            throw INVALID;
        }
    }

    /**
     * Rewrites the escape at {@code p}: the short escapes of quote, backslash and the five control
     * characters stay, <code>&#92;/</code> becomes a slash, and <code>&#92;uXXXX</code> becomes the
     * character in UTF-8 — or the short escape, or <code>&#92;u00xx</code> in lowercase for the
     * other controls. A surrogate escape must be a high one directly followed by a low one.
     *
     * @return the offset after the escape (after both escapes of a surrogate pair)
     */
    private int escape(int p) {
        if (p + 1 >= end) {
            throw INVALID;
        }
        byte kind = in[p + 1];
        switch (kind) {
            case '"':
            case '\\':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                out.put(in, p, 2);
                return p + 2;
            case '/':
                out.put((byte) '/');
                return p + 2;
            case 'u':
                break;
            default:
                throw INVALID;
        }
        int c = hex4(p + 2);
        int next = p + 6;
        if (Character.isHighSurrogate((char) c)) {
            if (next + 1 >= end || in[next] != '\\' || in[next + 1] != 'u') {
                throw INVALID;
            }
            int low = hex4(next + 2);
            if (!Character.isLowSurrogate((char) low)) {
                throw INVALID;
            }
            putUtf8(Character.toCodePoint((char) c, (char) low));
            return next + 6;
        }
        if (Character.isLowSurrogate((char) c)) {
            throw INVALID;
        }
        if (c < 0x20 || c == '"' || c == '\\') {
            putEscaped(c);
        } else {
            putUtf8(c);
        }
        return next;
    }

    private int hex4(int p) {
        if (p + 4 > end) {
            throw INVALID;
        }
        int value = 0;
        for (int i = p; i < p + 4; i++) {
            int digit = Character.digit(in[i], 16); // -1 for anything else, non-ASCII bytes included
            if (digit < 0) {
                throw INVALID;
            }
            value = value << 4 | digit;
        }
        return value;
    }

    /** RFC 8785 section 3.2.2.2: the short escapes, lowercase <code>&#92;u00xx</code> for other controls. */
    private void putEscaped(int c) {
        out.put((byte) '\\');
        switch (c) {
            case '"':
            case '\\':
                out.put((byte) c);
                break;
            case '\b':
                out.put((byte) 'b');
                break;
            case '\f':
                out.put((byte) 'f');
                break;
            case '\n':
                out.put((byte) 'n');
                break;
            case '\r':
                out.put((byte) 'r');
                break;
            case '\t':
                out.put((byte) 't');
                break;
            default:
                out.put((byte) 'u');
                out.put((byte) '0');
                out.put((byte) '0');
                out.put(HEX[c >> 4]);
                out.put(HEX[c & 0xF]);
        }
    }

    private void putUtf8(int codePoint) {
        if (codePoint < 0x80) {
            out.put((byte) codePoint);
        } else if (codePoint < 0x800) {
            out.put((byte) (0xC0 | codePoint >> 6));
            out.put((byte) (0x80 | codePoint & 0x3F));
        } else if (codePoint < 0x10000) {
            out.put((byte) (0xE0 | codePoint >> 12));
            out.put((byte) (0x80 | codePoint >> 6 & 0x3F));
            out.put((byte) (0x80 | codePoint & 0x3F));
        } else {
            out.put((byte) (0xF0 | codePoint >> 18));
            out.put((byte) (0x80 | codePoint >> 12 & 0x3F));
            out.put((byte) (0x80 | codePoint >> 6 & 0x3F));
            out.put((byte) (0x80 | codePoint & 0x3F));
        }
    }

    /** The length in UTF-16 units of the (already checked) string text between two offsets. */
    private int utf16Length(int from, int to) {
        int units = 0;
        int p = from;
        while (p < to) {
            int b = in[p] & 0xFF;
            if (b == '\\') {
                p += in[p + 1] == 'u' ? 6 : 2; // each escape is one unit, a pair's halves included
                units++;
            } else if (b < 0x80) {
                p++;
                units++;
            } else if (b < 0xE0) {
                p += 2;
                units++;
            } else if (b < 0xF0) {
                p += 3;
                units++;
            } else {
                p += 4;
                units += 2; // a supplementary character is a surrogate pair
            }
        }
        return units;
    }
}
