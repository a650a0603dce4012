package dev.idempotency.core;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.TreeMap;

/**
 * See {@link BodyCanonicalizer#sortedJson()}. Objects are parsed into key-sorted maps (String
 * order is UTF-16 code-unit order, like JavaScript's {@code sort()}), so writing the tree back
 * yields the canonical text in one pass. Jackson's read constraints bound nesting depth and
 * number length; a body beyond them is hashed raw.
 */
final class SortedJsonCanonicalizer implements BodyCanonicalizer {

    static final SortedJsonCanonicalizer INSTANCE = new SortedJsonCanonicalizer();

    private final ObjectMapper mapper;

    private SortedJsonCanonicalizer() {
        mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                // Write characters outside the BMP as UTF-8, not as escaped surrogate pairs.
                .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
                .nodeFactory(new SortedNodeFactory())
                .build();
    }

    @Override
    public byte[] canonicalize(byte[] body, String contentType) {
        if (body.length == 0 || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return body;
        }
        try {
            JsonNode tree = mapper.readTree(body);
            return tree == null ? body : mapper.writeValueAsBytes(tree);
        } catch (IOException | RuntimeException unparsable) {
            return body;
        }
    }

    /** Builds every JSON object on a sorted map. */
    private static final class SortedNodeFactory extends JsonNodeFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public ObjectNode objectNode() {
            return new ObjectNode(this, new TreeMap<>());
        }
    }
}
