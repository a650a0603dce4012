package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UserDetailsRepositoryReactiveAuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtIssuerReactiveAuthenticationManagerResolver;
import org.springframework.security.oauth2.server.resource.authentication.JwtReactiveAuthenticationManager;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Each authenticated caller's records are its own, with Spring Security's reactive HTTP Basic and
 * its anonymous authentication on Reactor Netty, the filter at its default order (after
 * {@code WebFilterChainProxy}) and no caller setting: {@link CallerChecks}, where the records are
 * filed, and what {@code idempotency.share-records-across-callers} gives up.
 */
class ReactiveCallerSeparationTest {

    private static final String ALICE = "alice:secret";
    private static final String BOB = "bob:secret";
    /** Authenticated by {@link CallerService#api}'s manager with an empty name. */
    private static final String NAMELESS = "nameless:secret";
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";
    private static final TokenIssuer ISSUER_A = new TokenIssuer("https://a.example", "issuer A's secret, long enough for HS256");
    private static final TokenIssuer ISSUER_B = new TokenIssuer("https://b.example", "issuer B's secret, long enough for HS256");

    private ConfigurableApplicationContext context;
    private InMemoryStore store;
    private URI base;
    private Orders orders;

    /** The application below, with Spring Boot's security auto-configuration (the tests' properties leave it out). */
    private void start(String... settings) {
        store = new InMemoryStore();
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.autoconfigure.exclude=" + R2dbcFreshDatabaseTest.BOOT_R2DBC,
                "--idempotency.enabled=true", "--idempotency.paths=/orders"));
        args.addAll(List.of(settings));
        SpringApplication application = new SpringApplication(CallerService.class);
        application.addInitializers(c -> c.getBeanFactory().registerSingleton("idempotencyStore", store));
        context = application.run(args.toArray(String[]::new));
        base = WebFluxConformanceTest.baseUri(context);
        orders = context.getBean(Orders.class);
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    /** One application for the checks that need no setting: each check uses keys of its own. */
    @Test
    void callersNeverSeeEachOthersAnswers() throws Exception {
        start();
        CallerChecks.twoCallersOneKeyEachGetTheirOwn(this::post, () -> orders.runs.get(), ALICE, BOB);
        CallerChecks.concurrentCallersOneKeyRunOncePerCaller(this::post, () -> orders.runs.get(), ALICE, BOB);
        CallerChecks.anotherCallersKeyTellsNothing(this::post, () -> orders.runs.get(), ALICE, BOB);
        CallerChecks.anonymousNeverReplaysAuthenticated(this::post, () -> orders.runs.get(), ALICE);
        CallerChecks.wrongCredentialsReserveNothing(this::post, () -> orders.runs.get(), "alice:guess", ALICE);
        CallerChecks.anonymousMarkerIsNotAnAccountOfItsName(this::post, () -> orders.runs.get(),
                "anonymousUser:secret");
        CallerChecks.unidentifiedCallerIsRefused(this::post, () -> orders.runs.get(), NAMELESS);

        String aliceKey = UUID.randomUUID().toString();
        String anonymousKey = UUID.randomUUID().toString();
        assertThat(post(ALICE, aliceKey, BODY).statusCode()).isEqualTo(201);
        HttpResponse<String> anonymous = post(null, anonymousKey, BODY);
        assertThat(anonymous.body()).contains("\"caller\":\"anonymous\"");
        assertThat(found("alice", aliceKey)).isTrue();
        assertThat(found(null, aliceKey)).isFalse();
        assertThat(found(null, anonymousKey)).isTrue();
        assertThat(found("anonymousUser", anonymousKey)).isFalse();
    }

    @Test
    void bearerTokensAreFiledByIssuerAndSubject() throws Exception {
        start();
        CallerChecks.tokensAreFiledByIssuerAndSubject(
                CallerChecks.authorizationPost(base.resolve("/orders")), () -> orders.runs.get(), ISSUER_A, ISSUER_B);
    }

    @Test
    void sharedAcrossCallersBobGetsAlicesReplay() throws Exception {
        start("--idempotency.share-records-across-callers=true");
        CallerChecks.sharedRecordsReplayOneCallersAnswerToAnother(this::post, () -> orders.runs.get(), ALICE, BOB);
    }

    private boolean found(String caller, String key) {
        RecordKey recordKey = new RecordKey("default", caller == null ? RecordKey.ANONYMOUS : RecordKey.callerOf(caller),
                "POST", "/orders", key);
        return store.find(recordKey, Instant.now()).isPresent();
    }

    private HttpResponse<String> post(String credentials, String key, String body) throws Exception {
        return CallerChecks.basicAuthPost(base.resolve("/orders")).send(credentials, key, body);
    }

    /**
     * HTTP Basic for alice, bob and an account named {@code anonymousUser} (the name of Spring
     * Security's anonymous authentication, switched on here), and for a user whose authentication
     * has an empty name; bearer JWTs of two issuers (Spring Security's resource server, each issuer
     * its own key); anonymous requests allowed; no CSRF for an API.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class CallerService {

        static ReactiveAuthenticationManager verifiedWith(TokenIssuer issuer) {
            return new JwtReactiveAuthenticationManager(NimbusReactiveJwtDecoder.withSecretKey(issuer.key())
                    .macAlgorithm(MacAlgorithm.HS256).build());
        }

        @Bean
        SecurityWebFilterChain api(ServerHttpSecurity http, MapReactiveUserDetailsService users) {
            ReactiveAuthenticationManager accounts = new UserDetailsRepositoryReactiveAuthenticationManager(users);
            ReactiveAuthenticationManager withNameless = request ->
                    "nameless".equals(request.getName()) && "secret".equals(request.getCredentials())
                            ? Mono.just(UsernamePasswordAuthenticationToken.authenticated("", null, List.of()))
                            : accounts.authenticate(request);
            return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                    .httpBasic(basic -> basic.authenticationManager(withNameless))
                    .oauth2ResourceServer(tokens -> tokens.authenticationManagerResolver(
                            new JwtIssuerReactiveAuthenticationManagerResolver(issuer -> Mono.justOrEmpty(Map.of(
                                    ISSUER_A.issuer(), verifiedWith(ISSUER_A),
                                    ISSUER_B.issuer(), verifiedWith(ISSUER_B)).get(issuer)))))
                    .anonymous(Customizer.withDefaults())
                    .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                    .build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(
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
        Mono<ResponseEntity<Order>> create(Mono<Principal> principal) {
            return principal.filter(p -> !(p instanceof AnonymousAuthenticationToken))
                    .map(p -> String.valueOf(p.getName())).defaultIfEmpty("anonymous").map(caller ->
                    ResponseEntity.status(HttpStatus.CREATED).body(new Order(runs.incrementAndGet(), caller)));
        }
    }
}
