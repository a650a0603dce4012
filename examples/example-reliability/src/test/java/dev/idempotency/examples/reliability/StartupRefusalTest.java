package dev.idempotency.examples.reliability;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A service process started with settings that cannot work exits before it listens, and says why
 * on its output: {@code REDIS_URL} with {@code IDEMPOTENCY_MODE=atomic} (Redis has no transaction
 * shared with the SQL database the orders are in), and the WebFlux service with the atomic mode on
 * its embedded H2 (it runs the atomic mode on R2DBC only). And the harness's own check: a Vert.x service
 * whose start-up line does not name {@code PgStore} fails its start, so the {@code vertx/PgStore}
 * cases cannot pass on another store.
 */
class StartupRefusalTest {

    @Test
    void redisWithTheAtomicModeRefusesToStartAndSaysWhy() {
        assertThatThrownBy(() -> ExampleProcess.start("redis-atomic",
                Map.of("REDIS_URL", "redis://127.0.0.1:6379", "IDEMPOTENCY_MODE", "atomic")))
                .hasMessageContaining("exited before it printed its start-up line")
                .hasMessageContaining("Cannot start the example: IDEMPOTENCY_MODE=atomic cannot be used with REDIS_URL");
    }

    @Test
    void theWebFluxServiceRefusesTheAtomicModeWithoutPostgresAndSaysWhy() {
        assertThatThrownBy(() -> ExampleProcess.start(ExampleService.WEBFLUX_R2DBC, "webflux-atomic",
                Map.of("IDEMPOTENCY_MODE", "atomic")))
                .hasMessageContaining("exited before it printed its start-up line")
                .hasMessageContaining("Cannot start the example: IDEMPOTENCY_MODE=atomic needs a PostgreSQL "
                        + "DATABASE_URL in the WebFlux example");
    }

    @Test
    void aVertxServiceOnJdbcStoreIsNotTakenForPgStore() {
        try (PostgresSchema schema = PostgresSchema.create("rel_refusal")) {
            assertThatThrownBy(() -> ExampleProcess.start(ExampleService.VERTX_PG, "vertx-on-jdbc",
                    Map.of("DATABASE_URL", schema.exampleUrl(), "IDEMPOTENCY_STORE", "jdbc", "IDEMPOTENCY_MODE", "atomic")))
                    .hasMessageContaining("is not vertx/PgStore")
                    .hasMessageContaining("(vertx) listening on")
                    .hasMessageContaining("idempotency store: JdbcStore");
        }
    }
}
