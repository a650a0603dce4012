package dev.idempotency.examples;

import dev.idempotency.core.Mode;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How an example service is started, read from the environment.
 *
 * <table>
 *   <caption>Environment variables</caption>
 *   <tr><th>variable</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code HOST}</td><td>unset: every interface</td><td>the bind address, e.g. {@code 127.0.0.1}</td></tr>
 *   <tr><td>{@code PORT}</td><td>8080</td><td>the HTTP port; 0 picks a free one</td></tr>
 *   <tr><td>{@code DATABASE_URL}</td><td>none: embedded H2 in memory</td><td>a JDBC URL, e.g.
 *       {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}</td></tr>
 *   <tr><td>{@code IDEMPOTENCY_MODE}</td><td>{@code reserve}</td><td>{@code reserve}, {@code optimistic} or
 *       {@code atomic}</td></tr>
 *   <tr><td>{@code IDEMPOTENCY}</td><td>{@code on}</td><td>{@code off} serves the same routes without the
 *       middleware (the baseline for benchmarks)</td></tr>
 * </table>
 *
 * @param port               the HTTP port, 0 for any free one
 * @param databaseUrl        the JDBC URL, empty for the embedded H2 database
 * @param mode               the engine's mode
 * @param idempotencyEnabled false when {@code IDEMPOTENCY=off}
 * @param host               the bind address ({@code HOST}), empty for the framework's default (every interface)
 */
public record ExampleSettings(int port, Optional<String> databaseUrl, Mode mode, boolean idempotencyEnabled,
                              Optional<String> host) {

    public ExampleSettings {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("PORT must be 0..65535, was " + port);
        }
    }

    /** The defaults: port 8080, embedded H2, reserve mode, idempotency on. */
    public static ExampleSettings defaults() {
        return from(Map.of());
    }

    /** Reads {@link System#getenv()}. */
    public static ExampleSettings fromEnvironment() {
        return from(System.getenv());
    }

    /**
     * Reads the variables from {@code env}; blank values count as unset.
     *
     * @throws IllegalArgumentException naming the variable whose value makes no sense
     */
    public static ExampleSettings from(Map<String, String> env) {
        return new ExampleSettings(port(value(env, "PORT")), value(env, "DATABASE_URL"),
                mode(value(env, "IDEMPOTENCY_MODE")), enabled(value(env, "IDEMPOTENCY")), value(env, "HOST"));
    }

    /** The same settings on another port (tests use 0). */
    public ExampleSettings withPort(int port) {
        return new ExampleSettings(port, databaseUrl, mode, idempotencyEnabled, host);
    }

    /** Where a client reaches the service: {@code HOST} (bracketed when IPv6), {@code localhost} when unset. */
    public String displayHost() {
        return host.map(h -> h.indexOf(':') >= 0 && !h.startsWith("[") ? "[" + h + "]" : h).orElse("localhost");
    }

    private static Optional<String> value(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
    }

    private static int port(Optional<String> value) {
        try {
            return value.map(Integer::parseInt).orElse(8080);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("PORT must be a number, was '" + value.get() + "'");
        }
    }

    private static Mode mode(Optional<String> value) {
        String mode = value.orElse("reserve").toLowerCase(Locale.ROOT);
        return switch (mode) {
            case "reserve" -> Mode.RESERVE;
            case "optimistic" -> Mode.OPTIMISTIC;
            case "atomic" -> Mode.ATOMIC;
            default -> throw new IllegalArgumentException(
                    "IDEMPOTENCY_MODE must be reserve, optimistic or atomic, was '" + value.get() + "'");
        };
    }

    private static boolean enabled(Optional<String> value) {
        String enabled = value.orElse("on").toLowerCase(Locale.ROOT);
        return switch (enabled) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new IllegalArgumentException("IDEMPOTENCY must be on or off, was '" + value.get() + "'");
        };
    }
}
