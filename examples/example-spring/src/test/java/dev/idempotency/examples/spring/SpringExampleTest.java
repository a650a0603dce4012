package dev.idempotency.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** The examples' HTTP contract against the Spring Boot service. */
class SpringExampleTest extends ExampleContractTest {

    /** Tomcat refuses a raw {@code #} in the request target itself (400), before any filter. */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.of(400);
    }

    @Override
    protected RunningExample start(ExampleSettings settings) {
        ExampleApp app = ExampleApp.create(settings);
        ConfigurableApplicationContext context = SpringExample.start(app);
        int port = SpringExample.port(context);
        return new RunningExample() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public String startupLine() {
                return app.startupLine("spring", port);
            }

            @Override
            public void close() {
                context.close(); // stops the server, then closes the engine and the database
            }
        };
    }

    /** Spring MVC cannot read a body of the wildcard type {@code *}{@code /*}: 415, with or without a key. */
    @Test
    void aWildcardContentTypeIs415() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (RunningExample example = start(settings(Map.of()))) {
            for (String key : new String[] {null, UUID.randomUUID().toString()}) {
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + example.port()
                                + "/orders")).header("Content-Type", "*/*")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\",\"quantity\":1}"));
                if (key != null) {
                    request.header("Idempotency-Key", key);
                }
                HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());

                assertThat(response.statusCode()).as(response.body()).isEqualTo(415);
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(new ObjectMapper().readTree(response.body()).path("status").asInt()).isEqualTo(415);
            }
        }
    }
}
