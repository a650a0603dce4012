package dev.idempotency.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * <p>For a body that is I-JSON (strict RFC 8259 JSON in well-formed UTF-8, without duplicate member
 * names or unpaired surrogates, with every number a finite IEEE-754 double) the result is the UTF-8
 * encoding of its RFC 8785 canonical form: no whitespace, object members sorted by the UTF-16 code
 * units of their names at every level, array order kept, numbers serialized as ECMAScript does
 * ({@link EcmaScriptNumbers}), and strings escaped only where the RFC requires it.
 *
 * <p>Any other body — a non-JSON content type, an empty body, one starting with a byte order mark,
 * or one that fails any of the checks above, including one nested deeper than 1,000 levels or
 * beyond the other limits of {@link CanonicalJsonParser} (Jackson's default stream constraints) —
 * is returned unchanged. The method never throws and keeps no state, so the shared instances are
 * thread-safe.
 *
 * <p>{@link #LAST_DUPLICATE_WINS} is the same canonical form with one difference: a duplicate
 * member name is not an error, the last one wins — exactly what {@code JSON.stringify} over a
 * key-sorted {@code JSON.parse} produces, the behaviour of {@link BodyCanonicalizer#sortedJson()}.
 *
 * <p>The body is read once, as bytes, and the canonical form written as it is read
 * ({@link CanonicalJsonParser}): no decoded copy of the text, no tree, no re-encoding.
 */
final class JcsCanonicalizer implements BodyCanonicalizer {

    /** Strict RFC 8785: duplicate member names make a body non-canonicalizable. */
    static final JcsCanonicalizer INSTANCE = new JcsCanonicalizer(true);

    /** RFC 8785 output, JavaScript parsing: the last of duplicate member names wins. */
    static final JcsCanonicalizer LAST_DUPLICATE_WINS = new JcsCanonicalizer(false);

    private static final Logger log = LoggerFactory.getLogger(JcsCanonicalizer.class);

    private final boolean rejectDuplicateNames;

    private JcsCanonicalizer(boolean rejectDuplicateNames) {
        this.rejectDuplicateNames = rejectDuplicateNames;
    }

    @Override
    public byte[] canonicalize(byte[] body, String contentType) {
        if (body == null || body.length == 0 || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return body;
        }
        try {
            return CanonicalJsonParser.canonicalize(body, rejectDuplicateNames);
        } catch (CanonicalJsonParser.NotCanonicalizable notCanonicalizable) {
            return body;
        } catch (RuntimeException defect) {
            // Not expected, but the contract is never to fail a request: such a body is
            // fingerprinted raw as well — and logged, since its retries would then only match
            // byte-identical bodies.
            log.warn("Canonicalizer failed on a {}-byte body; fingerprinting it raw", body.length, defect);
            return body;
        }
    }
}
