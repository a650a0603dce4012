package dev.idempotency.examples.reliability;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A service process started with settings that cannot work exits before it listens, and says why
 * on its output: {@code REDIS_URL} with {@code IDEMPOTENCY_MODE=atomic} (Redis has no transaction
 * shared with the SQL database the orders are in).
 */
class StartupRefusalTest {

    @Test
    void redisWithTheAtomicModeRefusesToStartAndSaysWhy() {
        assertThatThrownBy(() -> ExampleProcess.start("redis-atomic",
                Map.of("REDIS_URL", "redis://127.0.0.1:6379", "IDEMPOTENCY_MODE", "atomic")))
                .hasMessageContaining("exited before it printed its start-up line")
                .hasMessageContaining("Cannot start the example: IDEMPOTENCY_MODE=atomic cannot be used with REDIS_URL");
    }
}
