package dev.idempotency.spring;

import dev.idempotency.framework.PurgeSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code idempotency.purge.*} settings of a Spring Boot application ({@link PurgeSettings}). */
@ConfigurationProperties(PurgeSettings.PREFIX)
public class IdempotencyPurgeProperties extends PurgeSettings {
}
