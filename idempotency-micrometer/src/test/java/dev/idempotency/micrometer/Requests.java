package dev.idempotency.micrometer;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.RequestView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** The requests and responses the tests send through a real engine. */
final class Requests {

    private Requests() {
    }

    static RequestView post(String path, String key, String body) {
        return RequestView.of("POST", path, Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), body.getBytes(StandardCharsets.UTF_8));
    }

    static RequestView post(String key, String body) {
        return post("/orders", key, body);
    }

    static RequestView get(String path) {
        return RequestView.of("GET", path, Map.of(), new byte[0]);
    }

    static CapturedResponse created() {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8));
    }

    static CapturedResponse serverError() {
        return CapturedResponse.of(500, Map.of("Content-Type", List.of("application/json")),
                "{\"error\":\"boom\"}".getBytes(StandardCharsets.UTF_8));
    }
}
