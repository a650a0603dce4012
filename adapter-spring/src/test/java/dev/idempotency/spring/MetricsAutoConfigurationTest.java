package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.micrometer.IdempotencyMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The engine's meters on the application's {@code MeterRegistry}. */
class MetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
            .withPropertyValues("idempotency.enabled=true");

    private static void oneRequest(IdempotencyEngine engine) {
        Decision decision = engine.before(RequestView.of("POST", "/orders",
                Map.of("Idempotency-Key", List.of("metrics-key-1")), "{}".getBytes(StandardCharsets.UTF_8)));
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        ((Decision.Proceed) decision).execution().finish(CapturedResponse.of(201,
                Map.of("Content-Type", List.of("application/json")), "{\"id\":1}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aMeterRegistryBeanGetsTheRequestAndStoreMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withBean(MeterRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasSingleBean(IdempotencyMetrics.class);
            oneRequest(context.getBean(IdempotencyEngine.class));
            assertThat(registry.find("idempotency.requests").counters()).isNotEmpty();
            assertThat(registry.find("idempotency.store").timers()).isNotEmpty();
            assertThat(registry.find("idempotency.requests").counters().stream().mapToDouble(c -> c.count()).sum())
                    .isEqualTo(1.0);
        });
    }

    @Test
    void springBootsOwnRegistryIsFoundWhateverTheOrderOfTheAutoConfigurations() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                        MetricsAutoConfiguration.class))
                .withPropertyValues("idempotency.enabled=true")
                .run(context -> {
                    assertThat(context).hasSingleBean(IdempotencyMetrics.class);
                    oneRequest(context.getBean(IdempotencyEngine.class));
                    assertThat(context.getBean(MeterRegistry.class).find("idempotency.requests").counters()).isNotEmpty();
                });
    }

    @Test
    void noRegistryOrMetricsDisabledMeansNoMeters() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyMetrics.class));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withBean(MeterRegistry.class, () -> registry).withPropertyValues("idempotency.metrics.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(IdempotencyMetrics.class);
                    oneRequest(context.getBean(IdempotencyEngine.class));
                    assertThat(registry.getMeters()).isEmpty();
                });
    }
}
