package dev.idempotency.bench;

import java.util.Map;

/** One HTTP configuration of an example service: the middleware off, one of its modes, or replays. */
enum HttpConfig {
    OFF("off", Map.of("IDEMPOTENCY", "off")),
    OPTIMISTIC("optimistic", Map.of("IDEMPOTENCY", "on", "IDEMPOTENCY_MODE", "optimistic")),
    RESERVE("reserve", Map.of("IDEMPOTENCY", "on", "IDEMPOTENCY_MODE", "reserve")),
    ATOMIC("atomic", Map.of("IDEMPOTENCY", "on", "IDEMPOTENCY_MODE", "atomic")),
    /** Every request carries the same key, already completed: all are replays (reserve mode, the default). */
    REPLAY("replay", Map.of("IDEMPOTENCY", "on", "IDEMPOTENCY_MODE", "reserve"));

    private final String label;
    private final Map<String, String> env;

    HttpConfig(String label, Map<String, String> env) {
        this.label = label;
        this.env = env;
    }

    String label() {
        return label;
    }

    /** The service's settings for this configuration (besides PORT and DATABASE_URL). */
    Map<String, String> env() {
        return env;
    }
}
