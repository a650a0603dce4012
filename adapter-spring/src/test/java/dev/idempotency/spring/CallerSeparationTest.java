package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.testkit.CallerChecks;
import dev.idempotency.testkit.TokenIssuer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.oauth2.server.resource.authentication.JwtIssuerAuthenticationManagerResolver;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Each authenticated caller's records are its own, with Spring Security's HTTP Basic on embedded
 * Tomcat, the filter at its default order and no caller setting: {@link CallerChecks}, where the
 * records are filed, and what {@code idempotency.share-records-across-callers} gives up.
 */
class CallerSeparationTest {

    private static final String ALICE = "alice:secret";
    private static final String BOB = "bob:secret";
    /** Authenticated by {@link CallerService#nameless()} with an empty name. */
    private static final String NAMELESS = "nameless:secret";
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";
    private static final TokenIssuer ISSUER_A = new TokenIssuer("https://a.example", "issuer A's secret, long enough for HS256");
    private static final TokenIssuer ISSUER_B = new TokenIssuer("https://b.example", "issuer B's secret, long enough for HS256");

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final List<Logger> watched = new ArrayList<>();
    private ConfigurableApplicationContext context;
    private InMemoryStore store;
    private URI base;
    private Orders orders;

    /** The application below, with Spring Boot's security auto-configuration (the tests' properties leave it out). */
    private void start(String... settings) {
        store = new InMemoryStore();
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--spring.autoconfigure.exclude=",
                "--idempotency.enabled=true", "--idempotency.paths=/orders"));
        args.addAll(List.of(settings));
        SpringApplication application = new SpringApplication(CallerService.class);
        application.addInitializers(context -> {
            context.getBeanFactory().registerSingleton("idempotencyStore", store);
            watchLogs();   // here, after Spring Boot has set logging up, before the engine is built
        });
        context = application.run(args.toArray(String[]::new));
        base = SpringConformanceTest.baseUri(context);
        orders = context.getBean(Orders.class);
    }

    private void watchLogs() {
        logs.start();
        for (Class<?> source : List.of(IdempotencyAutoConfiguration.class, IdempotencyEngine.class)) {
            Logger logger = (Logger) LoggerFactory.getLogger(source);
            logger.addAppender(logs);
            watched.add(logger);
        }
    }

    @AfterEach
    void stop() {
        watched.forEach(logger -> logger.detachAppender(logs));
        if (context != null) {
            context.close();
        }
    }

    @Test
    void twoCallersOneKeyEachGetTheirOwn() throws Exception {
        start();
        CallerChecks.twoCallersOneKeyEachGetTheirOwn(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    @Test
    void concurrentCallersOneKeyRunOncePerCaller() throws Exception {
        start();
        CallerChecks.concurrentCallersOneKeyRunOncePerCaller(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    @Test
    void anotherCallersKeyTellsNothing() throws Exception {
        start();
        CallerChecks.anotherCallersKeyTellsNothing(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    @Test
    void anonymousNeverReplaysAuthenticated() throws Exception {
        start();
        CallerChecks.anonymousNeverReplaysAuthenticated(this::post, () -> orders.runs.get(), ALICE);
    }

    @Test
    void aRecordIsFiledUnderItsCallersHashAndAnAnonymousOneUnderNoCaller() throws Exception {
        start();
        String aliceKey = UUID.randomUUID().toString();
        String anonymousKey = UUID.randomUUID().toString();

        assertThat(post(ALICE, aliceKey, BODY).statusCode()).isEqualTo(201);
        HttpResponse<String> anonymous = post(null, anonymousKey, BODY);

        // Spring Security's request wrapper hides its anonymous authentication: no principal at all
        assertThat(anonymous.body()).contains("\"caller\":\"anonymous\"");
        assertThat(found("alice", aliceKey)).isTrue();
        assertThat(found(null, aliceKey)).isFalse();
        assertThat(found(null, anonymousKey)).isTrue();
        assertThat(found("anonymousUser", anonymousKey)).isFalse();
        assertThat(logs.list).as("nothing shared, nothing to warn about").isEmpty();
    }

    @Test
    void anEmptyNameIsRefusedNeverAnonymous() throws Exception {
        start();
        CallerChecks.unidentifiedCallerIsRefused(this::post, () -> orders.runs.get(), NAMELESS);
    }

    @Test
    void springSecuritysAnonymousAuthenticationIsNotTheAccountNamedAnonymousUser() throws Exception {
        start();
        CallerChecks.anonymousMarkerIsNotAnAccountOfItsName(this::post, () -> orders.runs.get(),
                "anonymousUser:secret");
        String key = UUID.randomUUID().toString();
        assertThat(post(null, key, BODY).statusCode()).isEqualTo(201);
        assertThat(found(null, key)).isTrue();
    }

    @Test
    void bearerTokensAreFiledByIssuerAndSubject() throws Exception {
        start();
        CallerChecks.tokensAreFiledByIssuerAndSubject(this::bearerPost, () -> orders.runs.get(), ISSUER_A, ISSUER_B);
    }

    @Test
    void wrongCredentialsAre401AndReserveNothing() throws Exception {
        start();
        CallerChecks.wrongCredentialsReserveNothing(this::post, () -> orders.runs.get(), "alice:guess", ALICE);
    }

    @Test
    void sharedAcrossCallersBobGetsAlicesReplayAndTheRiskIsLoggedAtStart() throws Exception {
        start("--idempotency.share-records-across-callers=true");
        List<String> atStart = warnings();

        CallerChecks.sharedRecordsReplayOneCallersAnswerToAnother(this::post, () -> orders.runs.get(), ALICE, BOB);

        assertThat(atStart).as("the engine's warning, before any request").hasSize(1)
                .allMatch(message -> message.contains("shared across callers"));
        assertThat(warnings()).as("and nothing more per request").hasSize(1);
        assertThat(logs.list).noneMatch(e -> e.getFormattedMessage().matches("(?s).*(alice|bob).*"));
    }

    private List<String> warnings() {
        return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    private boolean found(String caller, String key) {
        RecordKey recordKey = new RecordKey("default", caller == null ? RecordKey.ANONYMOUS : RecordKey.callerOf(caller),
                "POST", "/orders", key);
        return store.find(recordKey, Instant.now()).isPresent();
    }

    private HttpResponse<String> post(String credentials, String key, String body) throws Exception {
        return CallerChecks.basicAuthPost(base.resolve("/orders")).send(credentials, key, body);
    }

    private HttpResponse<String> bearerPost(String authorization, String key, String body) throws Exception {
        return CallerChecks.authorizationPost(base.resolve("/orders")).send(authorization, key, body);
    }

    /**
     * HTTP Basic for alice, bob and an account named {@code anonymousUser} (the name of Spring
     * Security's anonymous authentication, which servlet chains have by default), and for a user
     * whose authentication has an empty name; bearer JWTs of two issuers (Spring Security's resource
     * server, each issuer its own key); anonymous requests allowed; no CSRF for an API.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class CallerService {

        /** {@code nameless:secret} authenticates with an empty name; anything else goes on to the users below. */
        static AuthenticationProvider nameless() {
            return new AuthenticationProvider() {
                @Override
                public Authentication authenticate(Authentication request) {
                    return "nameless".equals(request.getName()) && "secret".equals(request.getCredentials())
                            ? UsernamePasswordAuthenticationToken.authenticated("", null, List.of())
                            : null;
                }

                @Override
                public boolean supports(Class<?> type) {
                    return UsernamePasswordAuthenticationToken.class.isAssignableFrom(type);
                }
            };
        }

        static AuthenticationManager verifiedWith(TokenIssuer issuer) {
            return new JwtAuthenticationProvider(NimbusJwtDecoder.withSecretKey(issuer.key())
                    .macAlgorithm(MacAlgorithm.HS256).build())::authenticate;
        }

        @Bean
        SecurityFilterChain api(HttpSecurity http) throws Exception {
            return http.csrf(AbstractHttpConfigurer::disable)
                    .authenticationProvider(nameless())
                    .httpBasic(Customizer.withDefaults())
                    .oauth2ResourceServer(tokens -> tokens.authenticationManagerResolver(
                            new JwtIssuerAuthenticationManagerResolver(Map.of(
                                    ISSUER_A.issuer(), verifiedWith(ISSUER_A),
                                    ISSUER_B.issuer(), verifiedWith(ISSUER_B))::get)))
                    .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("alice").password("{noop}secret").roles("USER").build(),
                    User.withUsername("bob").password("{noop}secret").roles("USER").build(),
                    User.withUsername("anonymousUser").password("{noop}secret").roles("USER").build());
        }
    }

    /** Each run a new order, with the caller's name: two callers' answers never look alike. */
    @RestController
    static class Orders {

        final AtomicInteger runs = new AtomicInteger();

        record Order(int order, String caller) {
        }

        @PostMapping("/orders")
        ResponseEntity<Order> create(@RequestBody byte[] body, Principal principal) {
            String caller = principal == null ? "anonymous" : principal.getName();
            return ResponseEntity.status(HttpStatus.CREATED).body(new Order(runs.incrementAndGet(), caller));
        }
    }
}
