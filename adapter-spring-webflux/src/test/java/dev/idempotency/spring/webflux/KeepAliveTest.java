package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * Every request a client sends on one keep-alive connection is answered, also one that arrives
 * before the exchange ahead of it has ended — as it does when the filter finished a keyed exchange
 * off the event loop, and the client had its response before the server was done with it.
 */
class KeepAliveTest {

    private static final int ROUNDS = 20;

    private static ConfigurableApplicationContext context;
    private static int port;

    @BeforeAll
    static void start() {
        context = new SpringApplication(Service.class).run("--server.port=0", "--server.address=127.0.0.1",
                "--spring.autoconfigure.exclude=" + R2dbcFreshDatabaseTest.BOOT_R2DBC,
                "--idempotency.enabled=true", "--idempotency.paths=/orders");
        port = WebFluxConformanceTest.baseUri(context).getPort();
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    /**
     * Per round, on one connection: a keyed POST and an uncovered GET in one write (the GET waits
     * for the POST's exchange to end), then one more GET once both were answered.
     */
    @Test
    void requestsArrivingBeforeTheExchangeAheadEndedAreAllAnswered() throws IOException {
        Orders orders = context.getBean(Orders.class);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000); // a connection the server stopped reading fails here
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            String body = "{\"item\":\"book\"}";
            String key = null;
            for (int round = 1; round <= ROUNDS; round++) {
                key = UUID.randomUUID().toString();
                out.write((post(key, body) + get()).getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(readResponse(in)).as("round %d: the keyed POST", round)
                        .isEqualTo("200 {\"order\":" + round + "}");
                assertThat(readResponse(in)).as("round %d: the GET sent with it", round).isEqualTo("200 pong");
                out.write(get().getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(readResponse(in)).as("round %d: the GET sent after both", round).isEqualTo("200 pong");
            }
            out.write(post(key, body).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).as("the last POST again: a replay").isEqualTo("200 {\"order\":" + ROUNDS + "}");
        }
        assertThat(orders.runs.get()).isEqualTo(ROUNDS);
    }

    private static String post(String key, String body) {
        return "POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: " + key
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    private static String get() {
        return "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    }

    /** One response: its status code and body, {@code "201 {...}"}; bodies by Content-Length or chunked. */
    private static String readResponse(InputStream in) throws IOException {
        String status = line(in);
        List<String> headers = new ArrayList<>();
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            headers.add(header.toLowerCase(Locale.ROOT));
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String length = headers.stream().filter(h -> h.startsWith("content-length:")).findFirst().orElse(null);
        if (length != null) {
            body.write(in.readNBytes(Integer.parseInt(length.substring(15).strip())));
        } else if (headers.contains("transfer-encoding: chunked")) {
            for (int size = Integer.parseInt(line(in).strip(), 16); size > 0; size = Integer.parseInt(line(in).strip(), 16)) {
                body.write(in.readNBytes(size));
                line(in);
            }
            line(in);
        }
        return status.split(" ")[1] + " " + body.toString(StandardCharsets.UTF_8);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed after: " + line);
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class Service {

        /** No CSRF for an API (Spring Security is on this module's test classpath). */
        @Bean
        SecurityWebFilterChain api(ServerHttpSecurity http) {
            return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                    .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                    .build();
        }

        /** {@code GET /ping}, answered in front of every other filter, where the request arrived. */
        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        WebFilter ping() {
            return (exchange, chain) -> exchange.getRequest().getPath().value().equals("/ping")
                    ? exchange.getResponse().writeWith(Mono.fromSupplier(() -> exchange.getResponse().bufferFactory()
                            .wrap("pong".getBytes(StandardCharsets.US_ASCII))))
                    : chain.filter(exchange);
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
