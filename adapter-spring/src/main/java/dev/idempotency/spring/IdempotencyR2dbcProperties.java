package dev.idempotency.spring;

import dev.idempotency.framework.R2dbcSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code idempotency.r2dbc.*} settings of a Spring Boot application ({@link R2dbcSettings}). */
@ConfigurationProperties(R2dbcSettings.PREFIX)
public class IdempotencyR2dbcProperties extends R2dbcSettings {
}
