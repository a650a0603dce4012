package dev.idempotency.spring;

import dev.idempotency.framework.JdbcSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code idempotency.jdbc.*} settings of a Spring Boot application ({@link JdbcSettings}). */
@ConfigurationProperties(JdbcSettings.PREFIX)
public class IdempotencyJdbcProperties extends JdbcSettings {
}
