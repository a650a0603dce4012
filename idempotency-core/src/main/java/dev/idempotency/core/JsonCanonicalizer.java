package dev.idempotency.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two JSON canonicalizers, {@link #SORTED_JSON} ({@link BodyCanonicalizer#sortedJson()}) and
 * {@link #JCS} ({@link BodyCanonicalizer#jcs()}): jackson-core's streaming parser reads the body,
 * a {@link CanonicalWriter} writes the canonical UTF-8 as the tokens come — no tree, no decoded
 * copy of the body.
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
     * Names are not canonicalized (pooled in a symbol table): the table is shared by all parsers of
     * a factory, seeded at random and refuses a body whose names collide too often, so whether a
     * body parses would depend on what came before it. Nor interned: they are untrusted input.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .streamReadConstraints(LIMITS)
            .build();

    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private static final ThreadLocal<CanonicalWriter> WRITERS = ThreadLocal.withInitial(CanonicalWriter::new);
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
        if (!isPlainUtf8(body)) {
            return body;
        }
        CanonicalWriter out = WRITERS.get();
        try {
            byte[] canonical = canonicalize(body, out);
            return canonical == null ? body : canonical;
        } catch (IOException notJson) {
            return body; // malformed, or beyond the limits
        } catch (RuntimeException defect) {
            // Not expected, but the contract is never to fail a request: such a body is
            // fingerprinted raw as well — and logged, since its retries would then only match
            // byte-identical bodies.
            log.warn("Canonicalizer failed on a {}-byte body; fingerprinting it raw", body.length, defect);
            return body;
        } finally {
            out.finish();
        }
    }

    /**
     * Jackson detects the encoding of a byte source: it reads UTF-16 and UTF-32 (recognized by a
     * byte order mark or by zero bytes among the first four) and skips a UTF-8 byte order mark.
     * Only UTF-8 without a mark is canonicalized, so that differently encoded bodies never meet in
     * one canonical form; a JSON text in UTF-8 has no zero byte outside strings, and none raw in
     * them.
     */
    private static boolean isPlainUtf8(byte[] body) {
        for (int i = 0; i < Math.min(4, body.length); i++) {
            if (body[i] == 0) {
                return false;
            }
        }
        boolean byteOrderMark = body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB
                && body[2] == (byte) 0xBF;
        return !byteOrderMark && StrictUtf8.isWellFormed(body);
    }

    /** @return the canonical form, or {@code null} if the body is not canonicalizable */
    private byte[] canonicalize(byte[] body, CanonicalWriter out) throws IOException {
        out.start(body.length + 16);
        try (JsonParser parser = JSON.createParser(body)) {
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
                        if (!out.string(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength())) {
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
