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

    @Test
    void redisUrlSelectsRedisWithTheDefaultPrefix() {
        ExampleSettings settings = ExampleSettings.from(Map.of("REDIS_URL", "redis://127.0.0.1:6379"));

        assertThat(settings.redisUrl()).hasValue("redis://127.0.0.1:6379");
        assertThat(settings.redisKeyPrefix()).isEqualTo("idempotency:");
        assertThat(settings.store(false)).isEqualTo(ExampleSettings.StoreKind.REDIS);
        assertThat(settings.store(true)).isEqualTo(ExampleSettings.StoreKind.REDIS);
        assertThat(ExampleSettings.from(Map.of("REDIS_URL", "redis-cluster://h1:7000,h2:7001", "REDIS_KEY_PREFIX",
                "shop:")).redisKeyPrefix()).isEqualTo("shop:");
    }

    @Test
    void withoutRedisTheStoreIsJdbcUnlessTheFrameworkHasPgStoreAndTheDatabaseIsPostgres() {
        assertThat(ExampleSettings.defaults().store(true)).isEqualTo(ExampleSettings.StoreKind.JDBC);
        ExampleSettings pg = ExampleSettings.from(Map.of("DATABASE_URL", "postgresql://app@db:5433/shop"));
        assertThat(pg.store(true)).isEqualTo(ExampleSettings.StoreKind.PG);
        assertThat(pg.store(false)).isEqualTo(ExampleSettings.StoreKind.JDBC);
        assertThat(pg.store(ExampleSettings.StoreKind.R2DBC)).isEqualTo(ExampleSettings.StoreKind.R2DBC);
        assertThat(ExampleSettings.defaults().store(ExampleSettings.StoreKind.R2DBC))
                .isEqualTo(ExampleSettings.StoreKind.JDBC);
        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", "jdbc:postgresql://db/shop?user=app")).store(true))
                .isEqualTo(ExampleSettings.StoreKind.PG);
        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", "jdbc:mariadb://db/shop")).store(true))
                .isEqualTo(ExampleSettings.StoreKind.JDBC);
        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", "postgresql://app@db/shop", "IDEMPOTENCY_STORE", "JDBC"))
                .store(true)).isEqualTo(ExampleSettings.StoreKind.JDBC);
        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", "postgresql://app@db/shop", "REDIS_URL",
                "redis://r:6379")).store(true)).isEqualTo(ExampleSettings.StoreKind.REDIS);
    }

    @Test
    void redisWithTheAtomicModeIsRefusedWithTheReason() {
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("REDIS_URL", "redis://127.0.0.1:6379",
                "IDEMPOTENCY_MODE", "atomic")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IDEMPOTENCY_MODE=atomic cannot be used with REDIS_URL")
                .hasMessageContaining("share no transaction");
        // the JDBC store chosen explicitly, or idempotency off: nothing to refuse
        assertThat(ExampleSettings.from(Map.of("REDIS_URL", "redis://r:6379", "IDEMPOTENCY_MODE", "atomic",
                "IDEMPOTENCY_STORE", "jdbc")).store(false)).isEqualTo(ExampleSettings.StoreKind.JDBC);
        assertThat(ExampleSettings.from(Map.of("REDIS_URL", "redis://r:6379", "IDEMPOTENCY_MODE", "atomic",
                "IDEMPOTENCY", "off")).idempotencyEnabled()).isFalse();
    }

    @Test
    void storeAndUrlNonsenseNamesTheVariable() {
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("REDIS_URL", "http://r:6379")))
                .hasMessageContaining("REDIS_URL");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("REDIS_KEY_PREFIX", "{x}")))
                .hasMessageContaining("REDIS_KEY_PREFIX");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("IDEMPOTENCY_STORE", "mongo")))
                .hasMessageContaining("IDEMPOTENCY_STORE");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("IDEMPOTENCY_STORE", "redis")))
                .hasMessageContaining("IDEMPOTENCY_STORE=redis needs REDIS_URL");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("IDEMPOTENCY_STORE", "pg")))
                .hasMessageContaining("IDEMPOTENCY_STORE=pg needs a PostgreSQL DATABASE_URL");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("DATABASE_URL", "postgresql://u@db/shop",
                "IDEMPOTENCY_STORE", "pg")).store(false)).hasMessageContaining("only").hasMessageContaining("Vert.x");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("IDEMPOTENCY_STORE", "r2dbc")))
                .hasMessageContaining("IDEMPOTENCY_STORE=r2dbc needs a PostgreSQL DATABASE_URL");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("DATABASE_URL", "postgresql://u@db/shop",
                "IDEMPOTENCY_STORE", "r2dbc")).store(ExampleSettings.StoreKind.PG))
                .hasMessageContaining("only").hasMessageContaining("WebFlux");
        assertThatThrownBy(() -> ExampleSettings.from(Map.of("DATABASE_URL", "mysql://u:secret@db/shop")))
                .hasMessageContaining("DATABASE_URL").hasMessageNotContaining("secret");
    }

    @Test
    void aPostgresqlUrlIsConvertedToJdbcAndAJdbcUrlIsKept() {
        ExampleSettings libpq = ExampleSettings.from(Map.of("DATABASE_URL",
                "postgresql://app:p%40ss@db.example:5433/shop?currentSchema=s1&ApplicationName=ex"));
        assertThat(libpq.jdbcUrl()).hasValue(
                "jdbc:postgresql://db.example:5433/shop?user=app&password=p%40ss&currentSchema=s1&ApplicationName=ex");
        PostgresUrl url = libpq.postgres().orElseThrow();
        assertThat(url.host()).isEqualTo("db.example");
        assertThat(url.port()).isEqualTo(5433);
        assertThat(url.database()).isEqualTo("shop");
        assertThat(url.user()).isEqualTo("app");
        assertThat(url.password()).isEqualTo("p@ss");
        assertThat(url.currentSchema()).hasValue("s1");
        assertThat(url.applicationName()).hasValue("ex");
        assertThat(url.display()).isEqualTo("postgresql://db.example:5433/shop");

        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", "postgres://db/shop")).jdbcUrl())
                .hasValue("jdbc:postgresql://db:5432/shop?user=postgres");

        String jdbc = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=x&currentSchema=s2";
        ExampleSettings kept = ExampleSettings.from(Map.of("DATABASE_URL", jdbc));
        assertThat(kept.jdbcUrl()).hasValue(jdbc);
        PostgresUrl parsed = kept.postgres().orElseThrow();
        assertThat(parsed.user()).isEqualTo("postgres");
        assertThat(parsed.password()).isEqualTo("x");
        assertThat(parsed.currentSchema()).hasValue("s2");
        assertThat(parsed.parameters()).containsOnlyKeys("currentSchema");

        // several hosts: the JDBC driver's business, not a PostgreSQL URL PgStore can open
        String multiHost = "jdbc:postgresql://h1:5432,h2:5432/test?user=postgres";
        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", multiHost)).postgres()).isEmpty();
        assertThat(ExampleSettings.from(Map.of("DATABASE_URL", multiHost)).jdbcUrl()).hasValue(multiHost);
    }
}
