package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.Mode;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.InvalidSettingsException;
import dev.idempotency.framework.JdbcSettings;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shared settings classes bound from MicroProfile Config, without a Quarkus application. */
class SettingsBindingTest {

    private final ClassLoader loader = Thread.currentThread().getContextClassLoader();

    private void configure(Map<String, String> properties) {
        release();
        // Quarkus's own duration converter (5s, 500ms, PT5S), as a Quarkus application has it
        ConfigProviderResolver.instance().registerConfig(new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 500)).build(), loader);
    }

    @AfterEach
    void release() {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        resolver.releaseConfig(resolver.getConfig(loader));
    }

    @Test
    void eachSetterReadsItsKebabCaseKeyAndAnAbsentKeyKeepsTheDefault() {
        configure(Map.of("idempotency.in-flight-wait", "PT0.5S", "idempotency.mode", "atomic",
                "idempotency.methods", "POST,PATCH", "idempotency.jdbc.initialize-schema", "always"));
        IdempotencySettings settings = SettingsBinding.bind(new IdempotencySettings(0) { }, IdempotencySettings.PREFIX);
        assertThat(settings.getInFlightWait()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.getMode()).isEqualTo(Mode.ATOMIC);
        assertThat(settings.getMethods()).containsExactly("POST", "PATCH");
        assertThat(settings.getTtl()).isEqualTo(Duration.ofHours(24));
        assertThat(settings.getPaths()).containsExactly("/**");
        JdbcSettings jdbc = SettingsBinding.bind(new JdbcSettings(), JdbcSettings.PREFIX);
        assertThat(jdbc.getInitializeSchema()).isEqualTo(JdbcSettings.InitializeSchema.ALWAYS);
        assertThat(jdbc.getTableName()).isEqualTo("idempotency_keys");
    }

    @Test
    void aDurationNeedsAUnitExceptZero() {
        configure(Map.of("idempotency.in-flight-wait", "0", "idempotency.lease", "45s", "idempotency.ttl", "1500ms"));
        IdempotencySettings settings = SettingsBinding.bind(new IdempotencySettings(0) { }, IdempotencySettings.PREFIX);
        assertThat(settings.getInFlightWait()).isZero();
        assertThat(settings.getLease()).isEqualTo(Duration.ofSeconds(45));
        assertThat(settings.getTtl()).isEqualTo(Duration.ofMillis(1500));
        configure(Map.of("idempotency.retry-after", "2"));
        assertThatThrownBy(() -> SettingsBinding.bind(new IdempotencySettings(0) { }, IdempotencySettings.PREFIX))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageStartingWith("idempotency.retry-after=2 has no unit: write it as 2s, 2ms");
    }

    @Test
    void aKeyNoSettingReadsOrAValueTheClassRefusesFailsNamingIt() {
        configure(Map.of("idempotency.in-flight-wiat", "PT1S", "idempotency.metrics.path-tag", "true"));
        assertThatThrownBy(() -> SettingsBinding.refuseUnknownKeys(Set.of("idempotency.metrics.path-tag")))
                .hasMessageStartingWith("idempotency.in-flight-wiat is not an idempotency setting");
        configure(Map.of("idempotency.jdbc.initialize-schema", "sometimes"));
        assertThatThrownBy(() -> SettingsBinding.bind(new JdbcSettings(), JdbcSettings.PREFIX))
                .hasMessageContaining("idempotency.jdbc.initialize-schema must be embedded, always or never");
    }
}
