package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.Mode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExampleSettingsTest {

    @Test
    void defaults() {
        ExampleSettings settings = ExampleSettings.from(Map.of("PORT", " "));

        assertThat(settings.port()).isEqualTo(8080);
        assertThat(settings.databaseUrl()).isEmpty();
        assertThat(settings.mode()).isEqualTo(Mode.RESERVE);
        assertThat(settings.idempotencyEnabled()).isTrue();
    }

    @Test
    void everyVariable() {
        ExampleSettings settings = ExampleSettings.from(Map.of("PORT", "9000", "DATABASE_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres", "IDEMPOTENCY_MODE", "Optimistic",
                "IDEMPOTENCY", "off"));

        assertThat(settings.port()).isEqualTo(9000);
        assertThat(settings.databaseUrl()).hasValue("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        assertThat(settings.mode()).isEqualTo(Mode.OPTIMISTIC);
        assertThat(settings.idempotencyEnabled()).isFalse();
    }

    @Test
    void atomicMode() {
        assertThat(ExampleSettings.from(Map.of("IDEMPOTENCY_MODE", "atomic")).mode()).isEqualTo(Mode.ATOMIC);
    }

    @Test
    void nonsenseNamesTheVariable() {
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("PORT", "http"))).hasMessageContaining("PORT");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("IDEMPOTENCY_MODE", "pessimistic")))
                .hasMessageContaining("IDEMPOTENCY_MODE");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("IDEMPOTENCY", "maybe"))).hasMessageContaining("IDEMPOTENCY");
    }
}
