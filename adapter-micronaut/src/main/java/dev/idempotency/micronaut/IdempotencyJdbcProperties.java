package dev.idempotency.micronaut;

import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.jdbc.JdbcStore;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;

/**
 * The {@code idempotency.jdbc.*} settings of a Micronaut application ({@link JdbcSettings});
 * {@code datasource} names a data source as in {@code datasources.<name>}.
 */
@ConfigurationProperties(JdbcSettings.PREFIX)
@Requires(classes = JdbcStore.class)
public class IdempotencyJdbcProperties extends JdbcSettings {
}
