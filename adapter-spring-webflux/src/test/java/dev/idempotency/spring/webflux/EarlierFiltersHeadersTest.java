package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.reactive.UrlBasedCorsConfigurationSource;
import reactor.core.publisher.Mono;

/**
 * What the filters in front of this one put on the response stays on the filter's own answers —
 * a replay and a problem — as on the handler's: here the CORS headers of Spring Security, without
 * which a browser would not let a cross-origin page read them.
 */
class EarlierFiltersHeadersTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String ORIGIN = "https://shop.example";

    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        context = new SpringApplication(CorsService.class).run("--server.port=0", "--server.address=127.0.0.1",
                "--spring.autoconfigure.exclude=" + R2dbcFreshDatabaseTest.BOOT_R2DBC,
                "--idempotency.enabled=true", "--idempotency.paths=/orders");
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @Test
    void aReplayAndAProblemCarryTheCorsHeadersOfTheFiltersInFront() throws Exception {
        String key = UUID.randomUUID().toString();
        Orders orders = context.getBean(Orders.class);
        HttpResponse<String> first = post(key, "{\"item\":\"book\"}");
        HttpResponse<String> replay = post(key, "{\"item\":\"book\"}");
        HttpResponse<String> conflict = post(key, "{\"item\":\"pen\"}");

        assertThat(first.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
        assertThat(conflict.statusCode()).isEqualTo(422);
        assertThat(conflict.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(conflict.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
        assertThat(orders.runs.get()).isEqualTo(1);
    }

    private static HttpResponse<String> post(String key, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Origin", ORIGIN)
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Spring Security's CORS support, allowing {@link #ORIGIN}; no CSRF for an API. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class CorsService {

        @Bean
        SecurityWebFilterChain api(ServerHttpSecurity http) {
            CorsConfiguration cors = new CorsConfiguration();
            cors.addAllowedOrigin(ORIGIN);
            cors.addAllowedMethod("POST");
            cors.addAllowedHeader("*");
            UrlBasedCorsConfigurationSource source = new UrlBasedCorsConfigurationSource();
            source.registerCorsConfiguration("/**", cors);
            return http.cors(c -> c.configurationSource(source))
                    .csrf(ServerHttpSecurity.CsrfSpec::disable)
                    .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                    .build();
        }
    }

    @RestController
    static class Orders {

        final AtomicInteger runs = new AtomicInteger();

        @PostMapping("/orders")
        Mono<String> create(@RequestBody String order) {
            return Mono.fromSupplier(() -> "{\"order\":" + runs.incrementAndGet() + "}");
        }
    }
}
