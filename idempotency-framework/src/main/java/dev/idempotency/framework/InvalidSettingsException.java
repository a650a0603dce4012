package dev.idempotency.framework;

import java.util.List;

/**
 * Settings that cannot work together or alone, found as the application starts: the message names
 * each setting by its configuration key ({@code idempotency.ttl}, ...) and says what to change, so a
 * framework can show it as the reason its start failed (Spring Boot: a failure analysis).
 */
public final class InvalidSettingsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<String> settings;

    /** @param settings the keys of the settings at fault; {@code message} names them and the fix */
    public InvalidSettingsException(List<String> settings, String message) {
        super(message);
        this.settings = List.copyOf(settings);
    }

    /** The configuration keys of the settings at fault. */
    public List<String> settings() {
        return settings;
    }
}
