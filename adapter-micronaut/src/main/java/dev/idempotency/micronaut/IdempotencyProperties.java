package dev.idempotency.micronaut;

import dev.idempotency.framework.IdempotencySettings;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.http.filter.ServerFilterPhase;

/**
 * The {@code idempotency.*} settings of a Micronaut application: the keys and defaults every
 * integration shares ({@link IdempotencySettings}); the filter's order defaults to
 * {@code ServerFilterPhase.SECURITY.after()}.
 */
@ConfigurationProperties(IdempotencySettings.PREFIX)
public class IdempotencyProperties extends IdempotencySettings {

    public IdempotencyProperties() {
        super(ServerFilterPhase.SECURITY.after());
    }
}
