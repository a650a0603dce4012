package dev.idempotency.examples.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The examples' HTTP contract against the Javalin service. */
class JavalinExampleTest extends ExampleContractTest {

    @Override
    protected RunningExample start(ExampleSettings settings) {
        ExampleApp app = ExampleApp.create(settings);
        Javalin server = JavalinExample.start(app);
        return new RunningExample() {
            @Override
            public int port() {
                return server.port();
            }

            @Override
            public String startupLine() {
                return app.startupLine("javalin", server.port());
            }

            @Override
            public void close() {
                server.stop(); // closes the app: engine and database
            }
        };
    }

    /** The documented limit, 1 MiB, is the one that holds: with a key (the engine's) and without (Javalin's). */
    @Test
    void aBodyOfExactlyOneMebibyteIsAnOrderAndOneByteMoreIs413() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (RunningExample example = start(settings(Map.of()))) {
            for (String key : Arrays.asList(UUID.randomUUID().toString(), null)) {
                assertThat(post(http, example, 1 << 20, key).statusCode()).as("1 MiB, key " + key).isEqualTo(201);
                assertThat(post(http, example, (1 << 20) + 1, key).statusCode()).as("1 MiB + 1, key " + key)
                        .isEqualTo(413);
            }
        }
    }

    /** An order padded with trailing spaces to exactly {@code bytes}. */
    private static HttpResponse<Void> post(HttpClient http, RunningExample example, int bytes, String key)
            throws Exception {
        String order = "{\"item\":\"book\",\"quantity\":1}";
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + example.port() + "/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(order + " ".repeat(bytes - order.length())));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.discarding());
    }
}
