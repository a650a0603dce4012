package dev.idempotency.jdbc;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.RequestView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Requests and responses for engine-level tests. */
final class Requests {

    private Requests() {
    }

    static RequestView post(String path, String key, String json) {
        return RequestView.of("POST", path, Map.of("Idempotency-Key", List.of(key), "Content-Type",
                List.of("application/json")), json.getBytes(StandardCharsets.UTF_8));
    }

    static CapturedResponse created(String json) {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json"), "Location",
                List.of("/orders/1")), json.getBytes(StandardCharsets.UTF_8));
    }
}
