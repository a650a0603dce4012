package dev.idempotency.micronaut;

import dev.idempotency.framework.PurgeSettings;
import io.micronaut.context.annotation.ConfigurationProperties;

/** The {@code idempotency.purge.*} settings of a Micronaut application ({@link PurgeSettings}). */
@ConfigurationProperties(PurgeSettings.PREFIX)
public class IdempotencyPurgeProperties extends PurgeSettings {
}
