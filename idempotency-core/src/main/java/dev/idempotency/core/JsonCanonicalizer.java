package dev.idempotency.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two JSON canonicalizers, {@link #SORTED_JSON} ({@link BodyCanonicalizer#sortedJson()}) and
 * {@link #JCS} ({@link BodyCanonicalizer#jcs()}): the body is decoded strictly into a per-thread
 * buffer ({@link Workspace}), jackson-core's streaming parser reads that, and a
 * {@link CanonicalWriter} writes the canonical UTF-8 as the tokens come — no tree.
 *
 * <p>Both accept exactly one JSON value (strict RFC 8259, Jackson's defaults: no comments, no
 * single quotes, no {@code NaN}, no leading zeros, no trailing commas) in well-formed UTF-8 without
 * a byte order mark, with no unpaired surrogate escape, within {@link #LIMITS}. Both sort object
 * members by the UTF-16 code units of their names, drop insignificant whitespace and write strings
 * the RFC 8785 way. They differ in two things:
 * <ul>
 *   <li>numbers: {@code SORTED_JSON} keeps each literal exactly as written; {@code JCS} reads it as
 *       an IEEE-754 double and writes that as ECMAScript does ({@link EcmaScriptNumbers}), and a
 *       number beyond the double range makes the body non-canonicalizable;
 *   <li>duplicate member names: {@code SORTED_JSON} keeps them all, in the order they came (the
 *       sort is stable); for {@code JCS} they make the body non-canonicalizable.
 * </ul>
 * A body that is not canonicalizable is returned as it came. The method never throws and keeps no
 * state across calls (buffers are reused per thread), so the shared instances are thread-safe.
 */
final class JsonCanonicalizer implements BodyCanonicalizer {

    /** Numbers as written, duplicate names kept: different bodies stay different. */
    static final JsonCanonicalizer SORTED_JSON = new JsonCanonicalizer(false);

    /** RFC 8785: numbers as ECMAScript doubles, duplicate names refused. */
    static final JsonCanonicalizer JCS = new JsonCanonicalizer(true);

    /**
     * Jackson's default stream limits, pinned: nesting depth, digits per number, UTF-16 units per
     * member name and per string (document length and token count stay unlimited, the builder's
     * own defaults). Pinned rather than taken from {@code StreamReadConstraints.defaults()}, which
     * an application may override globally, and which a Jackson release may change — either would
     * change which bodies are canonicalized, and so their fingerprints.
     */
    static final StreamReadConstraints LIMITS = StreamReadConstraints.builder()
            .maxNestingDepth(1_000)
            .maxNumberLength(1_000)
            .maxNameLength(50_000)
            .maxStringLength(20_000_000)
            .build();

    /**
     * Jackson's defaults but three. Member names are not interned: they are untrusted input. A
     * body whose names collide too often in Jackson's symbol table is not refused: the table is
     * shared by all parsers of the factory and seeded at random, so whether a body collides depends
     * on what came before it — refusing it would make its canonical form depend on that too; past
     * the threshold the table just stops pooling names (Jackson's own fallback). And doubles (for
     * JCS) are read with Jackson's fast parser (FastDoubleParser), which rounds exactly as
     * {@code Double.parseDouble} does at a fraction of its cost on 16- and 17-digit decimals
     * ({@code CanonicalizerDifferentialTest} holds it to that on literals halfway between doubles).
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .disable(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW)
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .streamReadConstraints(LIMITS)
            .build();

    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private static final ThreadLocal<Workspace> WORKSPACES = ThreadLocal.withInitial(Workspace::new);
    private static final Logger log = LoggerFactory.getLogger(JsonCanonicalizer.class);

    /** RFC 8785 numbers and no duplicate names, or numbers as written and duplicates kept. */
    private final boolean jcs;

    private JsonCanonicalizer(boolean jcs) {
        this.jcs = jcs;
    }

    @Override
    public byte[] canonicalize(byte[] body, String contentType) {
        if (body == null || body.length == 0 || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return body;
        }
        if (body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF) {
            return body; // a UTF-8 byte order mark, which a byte-source parser would skip
        }
        Workspace workspace = WORKSPACES.get();
        try {
            int length = workspace.decode(body);
            if (length < 0) {
                return body; // not well-formed UTF-8
            }
            byte[] canonical = canonicalize(workspace.text, length, body.length, workspace.out);
            return canonical == null ? body : canonical;
        } catch (IOException notJson) {
            return body; // malformed, or beyond the limits
        } catch (RuntimeException defect) {
            // Not expected, but the contract is never to fail a request: such a body is
            // fingerprinted raw as well — and logged, since its retries would then only match
            // byte-identical bodies.
            log.warn("Canonicalizer failed on a {}-byte body; fingerprinting it raw", body.length,
                    WithheldMessage.of(defect));
            return body;
        } finally {
            workspace.finish();
        }
    }

    /**
     * A thread's buffers, reused from body to body: the decoded text, the decoder, the writer.
     *
     * <p>The body is decoded here, strictly, rather than by Jackson: given bytes, Jackson detects
     * their encoding — it reads UTF-16 and UTF-32 (recognized by a byte order mark or by zero bytes
     * among the first four) and skips a UTF-8 byte order mark — and its own UTF-8 reading lets
     * overlong forms, encoded surrogates and code points above U+10FFFF through. Java's decoder,
     * set to report errors, rejects all of those (RFC 3629), and Jackson's parser over the decoded
     * chars detects nothing: a UTF-16 or UTF-32 body is malformed UTF-8 or a text with NUL
     * characters, and a leading U+FEFF is not whitespace, so each is raw.
     */
    private static final class Workspace {
        final CanonicalWriter out = new CanonicalWriter();
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        char[] text = new char[1024];

        /** @return the number of chars decoded into {@link #text}, or -1 if the body is not UTF-8 */
        int decode(byte[] body) {
            if (text.length < body.length) {
                text = new char[body.length]; // UTF-8 never decodes to more chars than bytes
            }
            CharBuffer chars = CharBuffer.wrap(text);
            decoder.reset();
            if (decoder.decode(ByteBuffer.wrap(body), chars, true).isError() || decoder.flush(chars).isError()) {
                return -1;
            }
            return chars.position();
        }

        void finish() {
            out.finish();
            if (text.length > CanonicalWriter.RETAINED_BYTES / Character.BYTES) {
                text = new char[1024];
            }
        }
    }

    /** @return the canonical form, or {@code null} if the text is not canonicalizable */
    private byte[] canonicalize(char[] text, int length, int bodyLength, CanonicalWriter out) throws IOException {
        out.start(bodyLength + 16);
        try (JsonParser parser = JSON.createParser(text, 0, length)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return null; // whitespace only
            }
            int depth = 0;
            do {
                switch (token) {
                    case START_OBJECT:
                        out.openObject();
                        depth++;
                        break;
                    case END_OBJECT:
                        if (!out.closeObject(jcs)) {
                            return null; // a duplicate name
                        }
                        depth--;
                        break;
                    case START_ARRAY:
                        out.openArray();
                        depth++;
                        break;
                    case END_ARRAY:
                        out.closeArray();
                        depth--;
                        break;
                    case FIELD_NAME:
                        if (!out.name(parser.currentName())) {
                            return null;
                        }
                        break;
                    case VALUE_STRING:
                        // Jackson checks a string's length when it builds the String (getText), not
                        // when it hands out a string that lies whole in its input buffer
                        int stringLength = parser.getTextLength();
                        if (stringLength > LIMITS.getMaxStringLength()
                                || !out.string(parser.getTextCharacters(), parser.getTextOffset(), stringLength)) {
                            return null;
                        }
                        break;
                    case VALUE_NUMBER_INT:
                    case VALUE_NUMBER_FLOAT:
                        if (!number(parser, out)) {
                            return null;
                        }
                        break;
                    case VALUE_TRUE:
                        out.value(TRUE);
                        break;
                    case VALUE_FALSE:
                        out.value(FALSE);
                        break;
                    case VALUE_NULL:
                        out.value(NULL);
                        break;
                    default:
                        return null; // no other token comes from JSON text
                }
            } while (depth > 0 && (token = parser.nextToken()) != null);
            if (depth != 0 || parser.nextToken() != null) {
                return null; // a second root value: "1 2"
            }
            return out.toByteArray();
        }
    }

    /** @return {@code false} for a number JCS cannot write: beyond the range of doubles */
    private boolean number(JsonParser parser, CanonicalWriter out) throws IOException {
        char[] text = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        out.number();
        if (!jcs) {
            out.putAscii(text, offset, length); // the literal as written
            return true;
        }
        if (EcmaScriptNumbers.appendCanonical(text, offset, offset + length, out)) {
            return true;
        }
        double value = parser.getDoubleValue();
        if (!Double.isFinite(value)) {
            return false;
        }
        out.putAscii(EcmaScriptNumbers.format(value));
        return true;
    }
}
