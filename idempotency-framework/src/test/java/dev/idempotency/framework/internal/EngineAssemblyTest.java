package dev.idempotency.framework.internal;

import dev.idempotency.framework.IdempotencyConfigCustomizer;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.InvalidSettingsException;
import dev.idempotency.framework.StoreCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
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
        try (IdempotencyEngine engine = build(EngineAssembly.of(settings), new InMemoryStore())) {
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
        EngineAssembly assembly = EngineAssembly.of(new Settings())
                .check(store -> steps.add("check 1 " + (store == given)))
                .check(store -> steps.add("check 2 " + (store == given)));
        build(assembly, given).close();
        assertThat(steps).containsExactly("check 1 true", "check 2 true");
    }

    @Test
    void aFailedCheckFailsTheBuild() {
        EngineAssembly assembly = EngineAssembly.of(new Settings()).check(store -> {
            throw new IllegalStateException("table idempotency_keys does not exist");
        });
        assertThatThrownBy(() -> build(assembly, null)).hasMessage("table idempotency_keys does not exist");
    }

    @Test
    void absentPartsLeaveTheEnginesDefaultsAndAnInvalidSettingFailsTheBuild() {
        try (IdempotencyEngine engine = build(EngineAssembly.of(new Settings()), null)) {
            assertThat(engine.config().tenantResolver()).isNotNull();
            assertThat(engine.config().callerResolver()).isNotNull();
        }
        Settings settings = new Settings();
        settings.setLease(Duration.ofHours(48));
        assertThatThrownBy(() -> build(EngineAssembly.of(settings), null)).isInstanceOf(IllegalArgumentException.class)
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
        build(EngineAssembly.of(settings), null).close(); // equal is fine: renewals move the expiry along

        settings.setTtl(Duration.ZERO);
        assertThatThrownBy(() -> EngineAssembly.of(settings)).isInstanceOf(InvalidSettingsException.class)
                .hasMessage("idempotency.ttl must be a positive duration; it is PT0S");
        settings.setTtl(Duration.ofHours(1));
        settings.setLease(null);
        assertThatThrownBy(() -> EngineAssembly.of(settings)).isInstanceOf(InvalidSettingsException.class)
                .hasMessage("idempotency.lease must be a positive duration; it is null");
    }

    @Test
    void theApplicationsBeansAndThenItsCustomizersShapeTheEngine() {
        TenantResolver tenants = request -> Optional.of("t");
        CallerResolver callers = request -> Optional.of("c");
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        List<String> steps = new ArrayList<>();
        Map<Class<?>, Object> single = Map.of(TenantResolver.class, tenants, CallerResolver.class, callers);
        Map<Class<?>, List<?>> every = Map.of(IdempotencyConfigCustomizer.class, List.<IdempotencyConfigCustomizer>of(
                config -> steps.add("application 1"),
                config -> config.clock(clock).callerResolver(request -> Optional.of("overridden"))));
        EngineAssembly assembly = EngineAssembly.of(new Settings()).customizer(config -> steps.add("integration"));
        try (IdempotencyEngine engine = assembly.build(single::get,
                type -> every.getOrDefault(type, List.of()).stream())) {
            assertThat(engine.config().tenantResolver()).isSameAs(tenants);
            assertThat(engine.config().callerResolver()).isNotSameAs(callers);
            assertThat(engine.config().clock()).isSameAs(clock);
        }
        assertThat(steps).containsExactly("integration", "application 1");
    }

    @Test
    void withAnAsyncStoreAndNoStoreTheEngineIsOverItAndTheChecksGetIt() {
        AsyncStore given = AsyncStore.of(new InMemoryStore(), Runnable::run);
        List<String> steps = new ArrayList<>();
        StoreCheck check = new StoreCheck() {
            @Override
            public void check(Store store) {
                steps.add("blocking");
            }

            @Override
            public void check(AsyncStore store) {
                steps.add("async " + (store == given));
            }
        };
        try (IdempotencyEngine engine = EngineAssembly.of(new Settings()).check(check)
                .build(type -> type == AsyncStore.class ? given : null, type -> Stream.empty())) {
            assertThat(engine.blocksCaller()).isFalse();
        }
        assertThat(steps).containsExactly("async true");
    }

    /** The assembly over a container holding {@code store} (or no store) and nothing else. */
    private static IdempotencyEngine build(EngineAssembly assembly, Store store) {
        return assembly.build(type -> type == Store.class ? store : null, type -> Stream.empty());
    }
}
