package dev.idempotency.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineAssemblyTest {

    private static final class Settings extends IdempotencySettings {
        Settings() {
            super(7);
        }
    }

    @Test
    void theSettingsReachTheEngineAndTheOrderItsDefault() {
        Settings settings = new Settings();
        settings.setHeaderName("X-Request-Key");
        settings.setTtl(Duration.ofHours(2));
        try (IdempotencyEngine engine = EngineAssembly.of(settings).store(new InMemoryStore()).build()) {
            assertThat(engine.config().headerName()).isEqualTo("X-Request-Key");
            assertThat(engine.config().ttl()).isEqualTo(Duration.ofHours(2));
        }
        assertThat(settings.getOrder()).isEqualTo(7);
        assertThat(settings.isEnabled()).isFalse();
        assertThat(settings.getPaths()).containsExactly("/**");
    }

    @Test
    void everyCheckRunsOnTheGivenStoreInTheOrderGiven() {
        List<String> steps = new ArrayList<>();
        Store given = new InMemoryStore();
        EngineAssembly assembly = EngineAssembly.of(new Settings()).store(given)
                .check(store -> steps.add("check 1 " + (store == given)))
                .check(store -> steps.add("check 2 " + (store == given)));
        assembly.build().close();
        assertThat(steps).containsExactly("check 1 true", "check 2 true");
    }

    @Test
    void aFailedCheckFailsTheBuild() {
        EngineAssembly assembly = EngineAssembly.of(new Settings()).check(store -> {
            throw new IllegalStateException("table idempotency_keys does not exist");
        });
        assertThatThrownBy(assembly::build).hasMessage("table idempotency_keys does not exist");
    }

    @Test
    void absentPartsLeaveTheEnginesDefaultsAndAnInvalidSettingFailsTheBuild() {
        try (IdempotencyEngine engine = EngineAssembly.of(new Settings()).store(null).tenantResolver(null)
                .callerResolver(null).canonicalizer(null).replayPolicy(null).build()) {
            assertThat(engine.config().tenantResolver()).isNotNull();
            assertThat(engine.config().callerResolver()).isNotNull();
        }
        Settings settings = new Settings();
        settings.setLease(Duration.ofHours(48));
        assertThatThrownBy(() -> EngineAssembly.of(settings).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
    }

    @Test
    void aTtlThatCannotOutliveTheLeaseIsRefusedByItsKeys() {
        Settings settings = new Settings();
        settings.setTtl(Duration.ofSeconds(10));
        settings.setLease(Duration.ofSeconds(30));
        assertThatThrownBy(() -> EngineAssembly.of(settings)).isInstanceOfSatisfying(InvalidSettingsException.class,
                e -> assertThat(e.settings()).containsExactly("idempotency.lease", "idempotency.ttl"))
                .hasMessageStartingWith("idempotency.lease (PT30S) must not be longer than idempotency.ttl (PT10S)");

        settings.setLease(Duration.ofSeconds(10));
        EngineAssembly.of(settings).build().close(); // equal is fine: renewals move the expiry along

        settings.setTtl(Duration.ZERO);
        assertThatThrownBy(() -> EngineAssembly.of(settings)).isInstanceOf(InvalidSettingsException.class)
                .hasMessage("idempotency.ttl must be a positive duration; it is PT0S");
        settings.setTtl(Duration.ofHours(1));
        settings.setLease(null);
        assertThatThrownBy(() -> EngineAssembly.of(settings)).isInstanceOf(InvalidSettingsException.class)
                .hasMessage("idempotency.lease must be a positive duration; it is null");
    }
}
