package dev.idempotency.core;

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
        String status = topLevelStatus(response.body());
        return !"partial".equals(status) && !"failed".equals(status);
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
