package dev.idempotency.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The health route docs/operations.md shows, line for line, so it keeps compiling and answering. */
class HealthRouteTest {

    @Test
    void upWithAWorkingStoreAnd503WithTheReasonDuringAnOutage() throws Exception {
        OutageStore store = new OutageStore(new InMemoryStore());
        try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.defaults())) {
            Javalin app = Javalin.create(cfg -> {
                cfg.registerPlugin(new IdempotencyPlugin(engine));
                // --- as in README.md, "Health"
                cfg.routes.get("/health", ctx -> {
                    try {
                        engine.checkStorage();
                        ctx.json(Map.of("status", "UP"));
                    } catch (StorageUnavailableException e) {
                        ctx.status(503).json(Map.of("status", "DOWN", "reason", e.reason().name()));
                    }
                });
                // ---
            }).start("127.0.0.1", 0);
            try {
                HttpClient http = HttpClient.newHttpClient();
                HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/health"))
                        .build();
                HttpResponse<String> up = http.send(health, HttpResponse.BodyHandlers.ofString());
                store.outage(StorageUnavailableException.Reason.NOT_PROVISIONED);
                HttpResponse<String> down = http.send(health, HttpResponse.BodyHandlers.ofString());

                assertThat(up.statusCode()).isEqualTo(200);
                assertThat(up.body()).contains("\"UP\"");
                assertThat(down.statusCode()).isEqualTo(503);
                assertThat(down.body()).contains("\"NOT_PROVISIONED\"").doesNotContain("simulated");
            } finally {
                app.stop();
            }
        }
    }
}
