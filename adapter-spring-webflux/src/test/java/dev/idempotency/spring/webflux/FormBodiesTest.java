package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
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
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.security.web.server.csrf.DefaultCsrfToken;
import org.springframework.security.web.server.csrf.ServerCsrfTokenRepository;
import org.springframework.security.web.server.csrf.ServerCsrfTokenRequestAttributeHandler;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.util.FileSystemUtils;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * A keyed request's body read as a URL-encoded form or as multipart data (the exchange's
 * {@code getFormData()} and {@code getMultipartData()}, which read the request's body themselves)
 * reaches the handler whole after the filter has read it, also when Spring Security's CSRF check
 * read the form first; and it is what the record's fingerprint is taken over.
 */
class FormBodiesTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String FORM = "application/x-www-form-urlencoded";
    private static final String BOUNDARY = "b0undary";

    private static final Path PARTS = partsDirectory();

    private static ConfigurableApplicationContext context;
    private static URI base;
    private static Forms forms;

    @BeforeAll
    static void start() {
        SpringApplication application = new SpringApplication(FormService.class);
        context = application.run("--server.port=0", "--server.address=127.0.0.1",
                "--spring.autoconfigure.exclude=" + R2dbcFreshDatabaseTest.BOOT_R2DBC,
                "--idempotency.enabled=true", "--idempotency.paths=/form,/csrf/form,/upload,/raw,/audited");
        base = WebFluxConformanceTest.baseUri(context);
        forms = context.getBean(Forms.class);
    }

    @AfterAll
    static void stop() throws IOException {
        context.close();
        FileSystemUtils.deleteRecursively(PARTS);
    }

    private static Path partsDirectory() {
        try {
            return Files.createTempDirectory("form-bodies-parts");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aKeyedFormReachesTheHandlerWholeAndIsReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = forms.runs.get();
        HttpResponse<String> first = post("/form", key, FORM, "item=book&quantity=2&note=a%20b%26c");
        HttpResponse<String> retry = post("/form", key, FORM, "item=book&quantity=2&note=a%20b%26c");
        HttpResponse<String> otherForm = post("/form", key, FORM, "item=pen&quantity=2&note=a%20b%26c");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("item=book", "quantity=2", "note=a b&c");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(otherForm.statusCode()).isEqualTo(422);
        assertThat(forms.runs.get() - before).isEqualTo(1);
    }

    @Test
    void aFormSpringSecurityReadForItsCsrfTokenFirstIsFingerprintedWhole() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = forms.runs.get();
        HttpResponse<String> first = post("/csrf/form", key, FORM, "_csrf=t0ken&item=book");
        HttpResponse<String> retry = post("/csrf/form", key, FORM, "_csrf=t0ken&item=book");
        HttpResponse<String> otherForm = post("/csrf/form", key, FORM, "_csrf=t0ken&item=pen");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("item=book");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(otherForm.statusCode()).isEqualTo(422);
        assertThat(forms.runs.get() - before).isEqualTo(1);
    }

    @Test
    void aHandlerReadingAKeyedFormAsItsRawBodyGetsAContentLengthThatMatchesIt() throws Exception {
        HttpResponse<String> raw = post("/raw", UUID.randomUUID().toString(), FORM, "note=a%20b%20c&item=%62ook");

        assertThat(raw.statusCode()).isEqualTo(200);
        String[] lengthAndBody = raw.body().split(" ", 2);
        assertThat(Long.parseLong(lengthAndBody[0])).isEqualTo(lengthAndBody[1].length());
        assertThat(lengthAndBody[1]).isEqualTo("note=a+b+c&item=book");
    }

    @Test
    void aBodyAFilterInFrontReadIsRefusedRatherThanFingerprintedAsEmpty() throws Exception {
        int before = forms.runs.get();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/audited", key, "application/json", "{\"amount\":100}");
        HttpResponse<String> other = post("/audited", key, "application/json", "{\"amount\":900}");

        assertThat(first.statusCode()).isEqualTo(400);
        assertThat(first.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(first.body()).contains("\"code\":\"idempotency_request_body_unreadable\"", "read before");
        assertThat(other.statusCode()).isEqualTo(400);
        assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(forms.runs.get() - before).isZero();
    }

    @Test
    void aFormTooLargeForTheCodecsGets413AndAMalformedOne400InOurWords() throws Exception {
        int before = forms.runs.get();
        HttpResponse<String> large = post("/form", UUID.randomUUID().toString(), FORM, "item=" + "x".repeat(300_000));
        HttpResponse<String> malformed = post("/form", UUID.randomUUID().toString(), FORM, "item=%zz");

        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(large.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(large.body()).contains("\"code\":\"idempotency_request_too_large\"", "form exceeds");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(malformed.body()).contains("\"code\":\"idempotency_request_body_unreadable\"", "URL-encoded form");
        assertThat(forms.runs.get() - before).isZero();
    }

    @Test
    void aKeyedMultipartBodyReachesTheHandlerWholeAndIsReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = forms.runs.get();
        String multipart = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"item\"\r\n\r\nbook\r\n"
                + "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
                + "Content-Type: text/plain\r\n\r\nthe file's text\r\n--" + BOUNDARY + "--\r\n";
        String type = "multipart/form-data; boundary=" + BOUNDARY;
        HttpResponse<String> first = post("/upload", key, type, multipart);
        HttpResponse<String> retry = post("/upload", key, type, multipart);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("item=book", "file=the file's text");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(forms.runs.get() - before).isEqualTo(1);
    }

    @Test
    void theTemporaryFileOfALargeKeyedPartIsDeletedOnceTheExchangeHasEnded() throws Exception {
        String key = UUID.randomUUID().toString();
        String large = "x".repeat(400_000); // above the parts' 256 KiB kept in memory
        String multipart = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"item\"\r\n\r\nbook\r\n"
                + "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
                + "Content-Type: text/plain\r\n\r\n" + large + "\r\n--" + BOUNDARY + "--\r\n";
        HttpResponse<String> first = post("/upload", key, "multipart/form-data; boundary=" + BOUNDARY, multipart);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).endsWith("file=" + large);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (filesIn(PARTS) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(filesIn(PARTS)).isZero();
    }

    private static long filesIn(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.count();
        }
    }

    private static HttpResponse<String> post(String path, String key, String type, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(path))
                .header("Idempotency-Key", key)
                .header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * CSRF checked on {@code /csrf/**} against a fixed token, taken from the form as browsers send it;
     * parts too large to be kept in memory written to {@link #PARTS}.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Forms.class)
    static class FormService {

        /** A filter in front of the idempotency filter that reads {@code /audited}'s body, and keeps nothing of it. */
        @Bean
        WebFilter audit() {
            return new OrderedAudit();
        }

        @Bean
        WebFluxConfigurer partsDirectory() {
            return new WebFluxConfigurer() {
                @Override
                public void configureHttpMessageCodecs(ServerCodecConfigurer codecs) {
                    DefaultPartHttpMessageReader parts = new DefaultPartHttpMessageReader();
                    try {
                        parts.setFileStorageDirectory(PARTS);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    codecs.defaultCodecs().multipartReader(new MultipartHttpMessageReader(parts));
                }
            };
        }

        @Bean
        SecurityWebFilterChain web(ServerHttpSecurity http) {
            CsrfToken token = new DefaultCsrfToken("X-CSRF-TOKEN", "_csrf", "t0ken");
            ServerCsrfTokenRepository fixed = new ServerCsrfTokenRepository() {
                @Override
                public Mono<CsrfToken> generateToken(ServerWebExchange exchange) {
                    return Mono.just(token);
                }

                @Override
                public Mono<Void> saveToken(ServerWebExchange exchange, CsrfToken csrfToken) {
                    return Mono.empty();
                }

                @Override
                public Mono<CsrfToken> loadToken(ServerWebExchange exchange) {
                    return Mono.just(token);
                }
            };
            return http.csrf(csrf -> csrf.csrfTokenRepository(fixed)
                            .csrfTokenRequestHandler(new ServerCsrfTokenRequestAttributeHandler())
                            .requireCsrfProtectionMatcher(ServerWebExchangeMatchers.pathMatchers("/csrf/**")))
                    .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                    .build();
        }
    }

    static final class OrderedAudit implements WebFilter, Ordered {

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            if (!exchange.getRequest().getPath().value().equals("/audited")) {
                return chain.filter(exchange);
            }
            return DataBufferUtils.join(exchange.getRequest().getBody())
                    .doOnNext(DataBufferUtils::release)
                    .then(chain.filter(exchange));
        }

        @Override
        public int getOrder() {
            return -200;
        }
    }

    /** Echoes the form or the parts it was given, with a run count. */
    @RestController
    static class Forms {

        final AtomicInteger runs = new AtomicInteger();

        @PostMapping("/form")
        Mono<String> form(ServerWebExchange exchange) {
            return exchange.getFormData().map(form -> runs.incrementAndGet() + " " + form.toSingleValueMap());
        }

        @PostMapping("/csrf/form")
        Mono<String> csrfForm(ServerWebExchange exchange) {
            return form(exchange);
        }

        /** The request's Content-Length, then its body as read: what a handler passing it on would send. */
        @PostMapping("/raw")
        Mono<String> raw(ServerWebExchange exchange) {
            return DataBufferUtils.join(exchange.getRequest().getBody()).map(joined -> {
                String body = joined.toString(StandardCharsets.UTF_8);
                DataBufferUtils.release(joined);
                return exchange.getRequest().getHeaders().getContentLength() + " " + body;
            });
        }

        @PostMapping("/audited")
        Mono<String> audited(ServerWebExchange exchange) {
            return Mono.fromSupplier(() -> "run " + runs.incrementAndGet());
        }

        @PostMapping("/upload")
        Mono<String> upload(ServerWebExchange exchange) {
            return exchange.getMultipartData().flatMap(parts -> {
                Part item = parts.getFirst("item");
                Part file = parts.getFirst("file");
                return Mono.zip(text(item), text(file)).map(texts ->
                        runs.incrementAndGet() + " item=" + texts.getT1() + " file=" + texts.getT2());
            });
        }

        private static Mono<String> text(Part part) {
            return DataBufferUtils.join(part.content()).map(joined -> {
                String text = joined.toString(StandardCharsets.UTF_8);
                DataBufferUtils.release(joined);
                return text;
            });
        }
    }

}
