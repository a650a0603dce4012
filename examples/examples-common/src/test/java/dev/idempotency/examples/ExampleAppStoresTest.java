package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The store selection as {@link ExampleApp#create} carries it out (the contract tests run each store end to end). */
class ExampleAppStoresTest {

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void anUnreachableRedisStopsTheStartAndTheMessageHidesThePassword() throws Exception {
        String url = "redis://:secret@127.0.0.1:" + closedPort();

        assertThatThrownBy(() -> ExampleApp.create(ExampleSettings.from(Map.of("REDIS_URL", url)).withPort(0)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Could not reach Redis (REDIS_URL) at redis://127.0.0.1:")
                .hasMessageNotContaining("secret");
    }

    @Test
    void redisKeepsTheRecordsWhileTheOrdersStayInTheDatabase() {
        try (RedisTestPrefix redis = new RedisTestPrefix();
             ExampleApp app = ExampleApp.create(ExampleSettings.from(Map.of("REDIS_URL", redis.url(),
                     "REDIS_KEY_PREFIX", redis.prefix())).withPort(0))) {
            assertThat(app.storeKind()).hasValue(ExampleSettings.StoreKind.REDIS);
            assertThat(app.startupLine("test", 1)).contains("idempotency store: RedisStore (key prefix "
                    + redis.prefix() + ") at " + redis.url() + "; orders in embedded H2 (in memory), mode: reserve");
        }
    }

    @Test
    void pgStoreIsRefusedBeforeTheDatabaseIsOpenedWhereTheFrameworkHasNone() throws Exception {
        // the database would not answer: the refusal must come first
        String url = "postgresql://postgres@127.0.0.1:" + closedPort() + "/test";

        assertThatThrownBy(() -> ExampleApp.create(ExampleSettings.from(Map.of("DATABASE_URL", url,
                "IDEMPOTENCY_STORE", "pg")).withPort(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IDEMPOTENCY_STORE=pg")
                .hasMessageContaining("only available in the Vert.x example");
    }

    @Test
    void withoutIdempotencyThereIsNoStore() {
        try (ExampleApp app = ExampleApp.create(ExampleSettings.from(Map.of("REDIS_URL", "redis://127.0.0.1:1",
                "IDEMPOTENCY", "off")).withPort(0))) {
            assertThat(app.storeKind()).isEmpty();
            assertThat(app.engine()).isEmpty();
        }
    }
}
