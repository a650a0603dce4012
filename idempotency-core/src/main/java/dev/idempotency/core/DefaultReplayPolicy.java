package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/** See {@link ReplayPolicy#defaults()}. */
final class DefaultReplayPolicy implements ReplayPolicy {

    static final DefaultReplayPolicy INSTANCE = new DefaultReplayPolicy();

    private static final JsonFactory JSON = new JsonFactory();

    private DefaultReplayPolicy() {
    }

    @Override
    public boolean isStorable(CapturedResponse response) {
        if (!response.isSuccessful()) {
            return false;
        }
        String contentType = response.contentType();
        if (contentType == null || !response.isCaptured() || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return true;
        }
        byte[] body = response.body();
        if (!mayHoldPartialOrFailed(body)) {
            return true;
        }
        String status = topLevelStatus(body);
        return !"partial".equals(status) && !"failed".equals(status);
    }

    private static final byte[] PARTIAL = {'"', 'p', 'a', 'r', 't', 'i', 'a', 'l', '"'};
    private static final byte[] FAILED = {'"', 'f', 'a', 'i', 'l', 'e', 'd', '"'};

    /**
     * Whether a JSON text could hold the string {@code "partial"} or {@code "failed"} anywhere: false
     * when it has neither literally and no backslash (without escapes a string's bytes are its
     * text). Most bodies are answered by this scan alone, without a parser.
     */
    private static boolean mayHoldPartialOrFailed(byte[] body) {
        for (int i = 0; i < body.length; i++) {
            byte b = body[i];
            if (b == '\\' || b == '"' && (startsWith(body, i, PARTIAL) || startsWith(body, i, FAILED))) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWith(byte[] body, int from, byte[] literal) {
        if (body.length - from < literal.length) {
            return false;
        }
        for (int j = 1; j < literal.length; j++) {
            if (body[from + j] != literal[j]) {
                return false;
            }
        }
        return true;
    }

    /** The top-level {@code "status"} string of a JSON object body; null when absent or unparsable. */
    private static String topLevelStatus(byte[] body) {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String status = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if ("status".equals(name) && value == JsonToken.VALUE_STRING) {
                    status = p.getText(); // the last duplicate wins, as in JSON.parse
                } else {
                    p.skipChildren();
                }
            }
            return status;
        } catch (IOException | RuntimeException unparsable) {
            return null; // not JSON after all: not a partial failure
        }
    }
}
