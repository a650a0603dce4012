package dev.idempotency.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The examples' HTTP contract against the WebFlux service (embedded H2, JdbcStore), where the
 * atomic mode is refused: it runs on R2DBC only ({@link WebFluxExampleOnR2dbcTest}).
 */
class WebFluxExampleTest extends ExampleContractTest {

    private static final String NEEDS_POSTGRES = "IDEMPOTENCY_MODE=atomic needs a PostgreSQL DATABASE_URL in the "
            + "WebFlux example";

    @Override
    protected Optional<String> atomicModeRefusal() {
        return Optional.of(NEEDS_POSTGRES);
    }

    /**
     * Every store but {@code R2dbcStore} refuses the atomic mode before anything is opened, and
     * says to use a PostgreSQL {@code DATABASE_URL}: the embedded H2, {@code IDEMPOTENCY_STORE=jdbc}
     * on PostgreSQL, another database.
     */
    @Test
    void theAtomicModeOnJdbcIsRefusedWithThePostgresAdvice() {
        for (Map<String, String> env : List.of(Map.<String, String>of(),
                Map.of("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test", "IDEMPOTENCY_STORE", "jdbc"),
                Map.of("DATABASE_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root"))) {
            Map<String, String> atomic = new HashMap<>(env);
            atomic.put("IDEMPOTENCY_MODE", "atomic");
            assertThatThrownBy(() -> WebFluxExample.Services.open(ExampleSettings.from(atomic).withPort(0)))
                    .as(env.toString())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(NEEDS_POSTGRES)
                    .hasMessageContaining("postgresql://");
        }
    }

    @Override
    protected RunningExample start(ExampleSettings settings) {
        WebFluxExample.Services services = WebFluxExample.Services.open(settings);
        // Each test starts and closes a service: without Reactor Netty's 2 s quiet period on close.
        ConfigurableApplicationContext context = WebFluxExample.start(services,
                "--spring.reactor.netty.shutdown-quiet-period=0s");
        int port = WebFluxExample.port(context);
        return new RunningExample() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public String startupLine() {
                return services.app().startupLine("webflux", port);
            }

            @Override
            public void close() {
                context.close(); // stops the server, then closes the engine and the databases
            }
        };
    }

    /**
     * WebFlux's own refusals of a body, with or without a key, are problem documents: a wildcard
     * {@code Content-Type} 415, a body over 1 MiB 413; a body of 300 KB (over WebFlux's default
     * codec limit) is read like in the other examples.
     */
    @Test
    void webFluxBodyRefusalsAreProblemsAndBodiesUpToTheEngineLimitAreRead() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String padded = "{\"item\":\"book\",\"quantity\":1,\"pad\":\"" + "x".repeat(300_000) + "\"}";
        String tooLong = "{\"item\":\"book\",\"quantity\":1,\"pad\":\"" + "x".repeat(1_100_000) + "\"}";
        try (RunningExample example = start(settings(Map.of()))) {
            URI orders = URI.create("http://127.0.0.1:" + example.port() + "/orders");
            for (String key : new String[] {null, UUID.randomUUID().toString()}) {
                HttpResponse<String> wildcard = send(http, orders, key, "*/*", "{\"item\":\"book\",\"quantity\":1}");
                assertThat(wildcard.statusCode()).as(wildcard.body()).isEqualTo(415);
                assertThat(wildcard.headers().firstValue("Content-Type")).hasValue("application/problem+json");

                HttpResponse<String> large = send(http, orders, key, "application/json", padded);
                assertThat(large.statusCode()).as(large.body()).isEqualTo(201);
            }
            HttpResponse<String> over = send(http, orders, null, "application/json", tooLong);
            assertThat(over.statusCode()).isEqualTo(413);
            assertThat(over.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(new ObjectMapper().readTree(over.body()).path("code").asText()).isEqualTo("body_too_large");
        }
    }

    private static HttpResponse<String> send(HttpClient http, URI uri, String key, String contentType, String body)
            throws Exception {
        // A bound, so that a connection the server stops reading fails the test instead of hanging it.
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
