package dev.idempotency.bench.proposed;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.idempotency.core.BodyCanonicalizer;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A prototype, for the benchmark only: the same canonical form as the core's
 * {@code JcsCanonicalizer} (output byte-identical, see its test), with the changes the profile of
 * {@code CanonicalizerBenchmark} points at — proposed for {@code idempotency-core}, measured here
 * side by side with the shipped canonicalizer:
 *
 * <ol>
 *   <li>validate UTF-8 in place (a check, no copy) and let Jackson parse the bytes
 *       ({@code UTF8StreamJsonParser}) instead of decoding the whole body into a
 *       {@code CharBuffer} and parsing chars;</li>
 *   <li>write the canonical form as UTF-8 straight into a growing {@code byte[]} instead of a
 *       {@code StringBuilder} that is then copied into a {@code String} and encoded again;</li>
 *   <li>numbers whose literal is already canonical in all but trailing fraction zeros and the sign
 *       of zero — no exponent, at most 15 significant digits, below 10^15, not below 10^-6 — are
 *       written from the literal ({@link #shortLiteral}): such a decimal survives the trip through
 *       a double, so its digits are the shortest ones ECMAScript would print, and neither the
 *       double parsing nor the shortest-digits search is needed; other numbers go the long way,
 *       with Jackson's bit-exact fast double parser ({@code StreamReadFeature.USE_FAST_DOUBLE_PARSER}).</li>
 * </ol>
 *
 * Numbers are still formatted by the core's {@code EcmaScriptNumbers}, reached through a method
 * handle (it is package-private).
 */
public final class ByteParsingCanonicalizer implements BodyCanonicalizer {

    /** Like {@code BodyCanonicalizer.sortedJson()}: the last of duplicate names wins. */
    public static final ByteParsingCanonicalizer SORTED_JSON = new ByteParsingCanonicalizer(false);
    /** Like {@code BodyCanonicalizer.jcs()}: duplicate names make a body non-canonicalizable. */
    public static final ByteParsingCanonicalizer JCS = new ByteParsingCanonicalizer(true);

    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .build();
    private static final MethodHandle FORMAT = formatHandle();
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private enum Literal {
        NULL("null"), TRUE("true"), FALSE("false");

        private final byte[] text;

        Literal(String text) {
            this.text = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    /** A number already in its canonical text. */
    private record CanonicalNumber(String text) {
    }

    private final boolean rejectDuplicateNames;

    private ByteParsingCanonicalizer(boolean rejectDuplicateNames) {
        this.rejectDuplicateNames = rejectDuplicateNames;
    }

    @Override
    public byte[] canonicalize(byte[] body, String contentType) {
        if (body == null || body.length == 0 || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return body;
        }
        // a byte order mark: the chars parser of the core refuses it, the bytes parser would skip it
        if (body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF
                || !isWellFormedUtf8(body)) {
            return body;
        }
        try {
            Object root = parse(body);
            if (root == null) {
                return body;
            }
            Sink out = new Sink(body.length);
            write(root, out);
            return out.toByteArray();
        } catch (IOException | RuntimeException notCanonicalizable) {
            return body;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Well-formed UTF-8 as Java's strict decoder defines it (RFC 3629): no overlong forms, no
     * encoded surrogates, nothing above U+10FFFF, no truncated sequence.
     */
    static boolean isWellFormedUtf8(byte[] b) {
        int i = 0;
        int n = b.length;
        while (i < n) {
            int b0 = b[i];
            if (b0 >= 0) {
                i++;
                continue;
            }
            b0 &= 0xFF;
            if (b0 < 0xC2) {
                return false; // a continuation byte, or an overlong two-byte form
            }
            if (b0 < 0xE0) {
                if (i + 1 >= n || !continuation(b[i + 1], 0x80, 0xBF)) {
                    return false;
                }
                i += 2;
            } else if (b0 < 0xF0) {
                int lo = b0 == 0xE0 ? 0xA0 : 0x80;
                int hi = b0 == 0xED ? 0x9F : 0xBF; // ED A0..BF would be a surrogate
                if (i + 2 >= n || !continuation(b[i + 1], lo, hi) || !continuation(b[i + 2], 0x80, 0xBF)) {
                    return false;
                }
                i += 3;
            } else if (b0 < 0xF5) {
                int lo = b0 == 0xF0 ? 0x90 : 0x80;
                int hi = b0 == 0xF4 ? 0x8F : 0xBF;
                if (i + 3 >= n || !continuation(b[i + 1], lo, hi) || !continuation(b[i + 2], 0x80, 0xBF)
                        || !continuation(b[i + 3], 0x80, 0xBF)) {
                    return false;
                }
                i += 4;
            } else {
                return false;
            }
        }
        return true;
    }

    private static boolean continuation(byte b, int lo, int hi) {
        int v = b & 0xFF;
        return v >= lo && v <= hi;
    }

    /** The core's tree: TreeMap objects, ArrayList arrays, String, Double and Literal. */
    @SuppressWarnings("unchecked")
    private Object parse(byte[] body) throws IOException {
        try (JsonParser parser = JSON.createParser(body)) {
            Deque<Object> open = new ArrayDeque<>();
            Object root = null;
            String name = null;
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (root != null && open.isEmpty()) {
                    return null;
                }
                Object value;
                switch (token) {
                    case FIELD_NAME:
                        name = parser.currentName();
                        if (hasUnpairedSurrogate(name)) {
                            return null;
                        }
                        continue;
                    case END_OBJECT:
                    case END_ARRAY:
                        open.pop();
                        continue;
                    case START_OBJECT:
                        value = new TreeMap<String, Object>();
                        break;
                    case START_ARRAY:
                        value = new ArrayList<>();
                        break;
                    case VALUE_STRING:
                        String string = parser.getText();
                        if (hasUnpairedSurrogate(string)) {
                            return null;
                        }
                        value = string;
                        break;
                    case VALUE_NUMBER_INT:
                    case VALUE_NUMBER_FLOAT:
                        String literal = shortLiteral(parser.getTextCharacters(), parser.getTextOffset(),
                                parser.getTextLength());
                        if (literal != null) {
                            value = new CanonicalNumber(literal);
                            break;
                        }
                        double number = parser.getDoubleValue();
                        if (!Double.isFinite(number)) {
                            return null;
                        }
                        value = number;
                        break;
                    case VALUE_TRUE:
                        value = Literal.TRUE;
                        break;
                    case VALUE_FALSE:
                        value = Literal.FALSE;
                        break;
                    case VALUE_NULL:
                        value = Literal.NULL;
                        break;
                    default:
                        return null;
                }
                Object parent = open.peek();
                if (parent == null) {
                    root = value;
                } else if (parent instanceof ArrayList) {
                    ((ArrayList<Object>) parent).add(value);
                } else if (((TreeMap<String, Object>) parent).put(name, value) != null && rejectDuplicateNames) {
                    return null;
                }
                if (value instanceof TreeMap || value instanceof ArrayList) {
                    open.push(value);
                }
            }
            return root != null && open.isEmpty() ? root : null;
        }
    }

    /**
     * The ECMAScript text of a JSON number literal that needs no double arithmetic, or {@code null}:
     * no exponent, an integer part of at most 15 digits, at most 15 significant digits, and no more
     * than five zeros between the point and the first significant digit of a value below one
     * (ECMAScript switches to exponent form below 10^-6). Such a decimal is the only one of at most
     * 15 significant digits that rounds to its double, so it is also the shortest: its canonical
     * text is the literal without trailing fraction zeros (and without the point when nothing is
     * left after it), and {@code 0} for any zero.
     */
    static String shortLiteral(char[] text, int offset, int length) {
        int i = offset;
        int end = offset + length;
        boolean negative = text[i] == '-';
        if (negative) {
            i++;
        }
        int intStart = i;
        while (i < end && text[i] >= '0' && text[i] <= '9') {
            i++;
        }
        int intEnd = i;
        int fracStart = i;
        int fracEnd = i;
        if (i < end && text[i] == '.') {
            fracStart = ++i;
            while (i < end && text[i] >= '0' && text[i] <= '9') {
                i++;
            }
            fracEnd = i;
        }
        if (i != end || intEnd == intStart || intEnd - intStart > 15) {
            return null; // an exponent, or too large for the short way
        }
        while (fracEnd > fracStart && text[fracEnd - 1] == '0') {
            fracEnd--;
        }
        boolean intIsZero = intEnd - intStart == 1 && text[intStart] == '0';
        int significant;
        if (intIsZero) {
            int firstNonZero = fracStart;
            while (firstNonZero < fracEnd && text[firstNonZero] == '0') {
                firstNonZero++;
            }
            if (firstNonZero == fracEnd) {
                return "0"; // 0, -0, 0.000
            }
            if (firstNonZero - fracStart > 5) {
                return null; // below 10^-6: ECMAScript writes an exponent
            }
            significant = fracEnd - firstNonZero;
        } else {
            significant = intEnd - intStart + fracEnd - fracStart;
        }
        if (significant > 15) {
            return null;
        }
        StringBuilder out = new StringBuilder(length);
        if (negative) {
            out.append('-');
        }
        out.append(text, intStart, intEnd - intStart);
        if (fracEnd > fracStart) {
            out.append('.').append(text, fracStart, fracEnd - fracStart);
        }
        return out.toString();
    }

    private static boolean hasUnpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private static final class Frame {
        final Iterator<?> items;
        final boolean object;
        boolean first = true;

        Frame(Iterator<?> items, boolean object) {
            this.items = items;
            this.object = object;
        }
    }

    private static void write(Object root, Sink out) throws Throwable {
        Deque<Frame> open = new ArrayDeque<>();
        Object value = root;
        while (true) {
            if (value instanceof TreeMap) {
                out.put('{');
                open.push(new Frame(((TreeMap<?, ?>) value).entrySet().iterator(), true));
            } else if (value instanceof ArrayList) {
                out.put('[');
                open.push(new Frame(((ArrayList<?>) value).iterator(), false));
            } else if (value instanceof String s) {
                writeString(s, out);
            } else if (value instanceof CanonicalNumber n) {
                out.putAscii(n.text());
            } else if (value instanceof Double d) {
                out.putAscii((String) FORMAT.invokeExact(d.doubleValue()));
            } else {
                out.put(((Literal) value).text);
            }
            value = null;
            while (value == null) {
                Frame frame = open.peek();
                if (frame == null) {
                    return;
                }
                if (!frame.items.hasNext()) {
                    out.put(frame.object ? '}' : ']');
                    open.pop();
                    continue;
                }
                if (!frame.first) {
                    out.put(',');
                }
                frame.first = false;
                Object item = frame.items.next();
                if (frame.object) {
                    Map.Entry<?, ?> member = (Map.Entry<?, ?>) item;
                    writeString((String) member.getKey(), out);
                    out.put(':');
                    value = member.getValue();
                } else {
                    value = item;
                }
            }
        }
    }

    /** RFC 8785 string escaping, encoded as UTF-8 on the way out. */
    private static void writeString(String s, Sink out) {
        out.ensure(s.length() * 3 + 2);
        out.putUnchecked('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (c >= 0x20 && c != '"' && c != '\\') {
                    out.putUnchecked(c);
                    continue;
                }
                out.ensure(6 + (s.length() - i) * 3);
                switch (c) {
                    case '"' -> out.putTwo('\\', '"');
                    case '\\' -> out.putTwo('\\', '\\');
                    case '\b' -> out.putTwo('\\', 'b');
                    case '\f' -> out.putTwo('\\', 'f');
                    case '\n' -> out.putTwo('\\', 'n');
                    case '\r' -> out.putTwo('\\', 'r');
                    case '\t' -> out.putTwo('\\', 't');
                    default -> {
                        out.putTwo('\\', 'u');
                        out.putTwo('0', '0');
                        out.putUnchecked((char) HEX[c >> 4]);
                        out.putUnchecked((char) HEX[c & 0xf]);
                    }
                }
            } else if (c < 0x800) {
                out.putUnchecked((char) (0xC0 | c >> 6));
                out.putUnchecked((char) (0x80 | c & 0x3F));
            } else if (Character.isHighSurrogate(c)) {
                int cp = Character.toCodePoint(c, s.charAt(++i)); // paired: checked when parsed
                out.putUnchecked((char) (0xF0 | cp >> 18));
                out.putUnchecked((char) (0x80 | cp >> 12 & 0x3F));
                out.putUnchecked((char) (0x80 | cp >> 6 & 0x3F));
                out.putUnchecked((char) (0x80 | cp & 0x3F));
            } else {
                out.putUnchecked((char) (0xE0 | c >> 12));
                out.putUnchecked((char) (0x80 | c >> 6 & 0x3F));
                out.putUnchecked((char) (0x80 | c & 0x3F));
            }
        }
        out.putUnchecked('"');
    }

    /** A growing byte array. */
    private static final class Sink {
        private byte[] buf;
        private int len;

        Sink(int hint) {
            buf = new byte[Math.max(16, hint)];
        }

        void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        void put(char c) {
            ensure(1);
            buf[len++] = (byte) c;
        }

        void putUnchecked(char c) {
            buf[len++] = (byte) c;
        }

        void putTwo(char a, char b) {
            buf[len++] = (byte) a;
            buf[len++] = (byte) b;
        }

        void put(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buf, len, bytes.length);
            len += bytes.length;
        }

        void putAscii(String s) {
            ensure(s.length());
            for (int i = 0; i < s.length(); i++) {
                buf[len++] = (byte) s.charAt(i); // ASCII only: digits, sign, point, exponent
            }
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, len);
        }
    }

    private static MethodHandle formatHandle() {
        try {
            Class<?> numbers = Class.forName("dev.idempotency.core.EcmaScriptNumbers");
            java.lang.reflect.Method format = numbers.getDeclaredMethod("format", double.class);
            format.setAccessible(true);
            return MethodHandles.lookup().unreflect(format).asType(MethodType.methodType(String.class, double.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
