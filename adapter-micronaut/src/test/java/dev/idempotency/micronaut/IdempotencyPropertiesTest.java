package dev.idempotency.micronaut;

import java.time.Instant;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.adapter.Decision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.Mode;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.framework.IdempotencyConfigCustomizer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.filter.ServerFilterPhase;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The {@code idempotency.*} keys, their defaults, and the beans the engine is built from. */
class IdempotencyPropertiesTest {

    @Test
    void theFilterIsOffUnlessEnabled() {
        try (ApplicationContext context = ApplicationContext.run()) {
            assertThat(context.getBean(IdempotencyProperties.class).isEnabled()).isFalse();
            assertThat(context.containsBean(IdempotencyEngine.class)).isFalse();
            assertThat(context.containsBean(IdempotencyFilter.class)).isFalse();
        }
    }

    @Test
    void everyDefaultIsTheEnginesDefault() {
        withContext(Map.of(), context -> {
            IdempotencyProperties properties = context.getBean(IdempotencyProperties.class);
            assertThat(properties.getPaths()).containsExactly("/**");
            assertThat(properties.getOrder()).isEqualTo(ServerFilterPhase.SECURITY.after());

            IdempotencyConfig config = context.getBean(IdempotencyEngine.class).config();
            IdempotencyConfig defaults = IdempotencyConfig.defaults();
            assertThat(config.headerName()).isEqualTo("Idempotency-Key");
            assertThat(config.methods()).containsExactly("POST");
            assertThat(config.keyRequired()).isFalse();
            assertThat(config.mode()).isEqualTo(Mode.RESERVE);
            assertThat(config.ttl()).isEqualTo(Duration.ofHours(24));
            assertThat(config.lease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(config.renewLease()).isTrue();
            assertThat(config.inFlightWait()).isEqualTo(Duration.ZERO);
            assertThat(config.inFlightPollInterval()).isEqualTo(defaults.inFlightPollInterval());
            assertThat(config.retryAfter()).isEqualTo(defaults.retryAfter());
            assertThat(config.maxRequestBodyBytes()).isEqualTo(1 << 20);
            assertThat(config.maxStoredBodyBytes()).isEqualTo(4 << 20);
            assertThat(config.runAgainWhenNotStored()).isFalse();
            assertThat(config.replayedHeaders()).isEqualTo(defaults.replayedHeaders());
            assertThat(config.problemTypeBase()).isEqualTo(defaults.problemTypeBase());
            assertThat(config.canonicalizer()).isSameAs(BodyCanonicalizer.sortedJson());
            assertThat(config.replayPolicy()).isSameAs(ReplayPolicy.defaults());
            assertThat(config.shareRecordsAcrossCallers()).isFalse();
            // Without a Store bean the engine keeps its records in memory: a retry replays.
            IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
            RequestView post = RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of("k1")), new byte[0]);
            ((Decision.Proceed) engine.before(post)).execution().finish(CapturedResponse.of(201, Map.of(), new byte[0]));
            assertThat(((Decision.Respond) engine.before(post)).isReplay()).isTrue();
        });
    }

    @Test
    void everyKeyCanBeOverridden() {
        Map<String, Object> properties = new HashMap<>();
        properties.put("idempotency.paths", List.of("/orders/**", "/payments"));
        properties.put("idempotency.order", 42);
        properties.put("idempotency.header-name", "X-Request-Key");
        properties.put("idempotency.methods", List.of("post", "PUT"));
        properties.put("idempotency.key-required", true);
        properties.put("idempotency.mode", "optimistic");
        properties.put("idempotency.ttl", "2h");
        properties.put("idempotency.lease", "45s");
        properties.put("idempotency.renew-lease", false);
        properties.put("idempotency.in-flight-wait", "3s");
        properties.put("idempotency.in-flight-poll-interval", "20ms");
        properties.put("idempotency.retry-after", "5s");
        properties.put("idempotency.max-request-body-bytes", 4096);
        properties.put("idempotency.max-stored-body-bytes", 2048);
        properties.put("idempotency.run-again-when-not-stored", true);
        properties.put("idempotency.replayed-headers", List.of("Location", "X-Order-Seq"));
        properties.put("idempotency.problem-type-base", "https://errors.example.com/");
        properties.put("idempotency.share-records-across-callers", true);
        withContext(properties, context -> {
            IdempotencyProperties props = context.getBean(IdempotencyProperties.class);
            assertThat(props.getPaths()).containsExactly("/orders/**", "/payments");
            assertThat(props.getOrder()).isEqualTo(42);
            assertThat(context.getBean(IdempotencyFilter.class).getOrder()).isEqualTo(42);

            IdempotencyConfig config = context.getBean(IdempotencyEngine.class).config();
            assertThat(config.headerName()).isEqualTo("X-Request-Key");
            assertThat(config.methods()).containsExactlyInAnyOrder("POST", "PUT");
            assertThat(config.keyRequired()).isTrue();
            assertThat(config.mode()).isEqualTo(Mode.OPTIMISTIC);
            assertThat(config.ttl()).isEqualTo(Duration.ofHours(2));
            assertThat(config.lease()).isEqualTo(Duration.ofSeconds(45));
            assertThat(config.renewLease()).isFalse();
            assertThat(config.inFlightWait()).isEqualTo(Duration.ofSeconds(3));
            assertThat(config.inFlightPollInterval()).isEqualTo(Duration.ofMillis(20));
            assertThat(config.retryAfter()).isEqualTo(Duration.ofSeconds(5));
            assertThat(config.maxRequestBodyBytes()).isEqualTo(4096);
            assertThat(config.maxStoredBodyBytes()).isEqualTo(2048);
            assertThat(config.runAgainWhenNotStored()).isTrue();
            assertThat(config.replayedHeaders()).containsExactlyInAnyOrder("Location", "X-Order-Seq");
            assertThat(config.problemTypeBase()).isEqualTo("https://errors.example.com/");
            assertThat(config.shareRecordsAcrossCallers()).isTrue();
        });
    }

    @Test
    void nonsenseFailsTheApplicationsStart() {
        assertThatThrownBy(() -> ApplicationContext.run(Map.of(
                "idempotency.enabled", true, "idempotency.ttl", "10s", "idempotency.lease", "1m")).close())
                .hasStackTraceContaining("idempotency.lease (PT1M) must not be longer than idempotency.ttl (PT10S)");
        assertThatThrownBy(() -> ApplicationContext.run(Map.of(
                "idempotency.enabled", true, "idempotency.ttl", "banana")).close())
                .hasStackTraceContaining("banana");
        assertThatThrownBy(() -> ApplicationContext.run(Map.of(
                "idempotency.enabled", true, "idempotency.mode", "atomic")).close())
                .as("the in-memory store cannot hold a transaction")
                .hasStackTraceContaining("The atomic mode needs a store that joins the application's transaction");
    }

    @Test
    void theApplicationsBeansArePickedUp() {
        InMemoryStore store = new InMemoryStore();
        TenantResolver tenants = TenantResolver.header("X-Tenant-Id", "public");
        CallerResolver callers = request -> Optional.ofNullable(request.header("X-Client"));
        BodyCanonicalizer canonicalizer = BodyCanonicalizer.rawBytes();
        ReplayPolicy policy = response -> response.status() == 201;
        IdempotencyListener listener = event -> { };
        try (ApplicationContext context = ApplicationContext.builder()
                .properties(Map.of("idempotency.enabled", true))
                .singletons(store, tenants, callers, canonicalizer, policy, listener)
                .start()) {
            IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
            Decision decision = engine.before(RequestView.of("POST", "/orders", Map.of("Idempotency-Key",
                    List.of("k1"), "X-Tenant-Id", List.of("t1"), "X-Client", List.of("c1")), new byte[0]));
            ((Decision.Proceed) decision).execution().finish(CapturedResponse.of(201, Map.of(), new byte[0]));
            assertThat(store.find(new RecordKey("t1", RecordKey.callerOf("c1"), "POST", "/orders", "k1"), Instant.now()))
                    .as("the engine writes to the store bean, under the caller resolver's caller").isPresent();
            assertThat(engine.config().tenantResolver()).isSameAs(tenants);
            assertThat(engine.config().callerResolver()).isSameAs(callers);
            assertThat(engine.config().canonicalizer()).isSameAs(canonicalizer);
            assertThat(engine.config().replayPolicy()).isSameAs(policy);
            assertThat(engine.config().listener()).isSameAs(listener);
        }
    }

    @Test
    void everyCustomizerBeanAdjustsTheEngineInItsOrderAfterTheBeans() {
        CallerResolver callers = request -> Optional.of("bean");
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        List<String> steps = new CopyOnWriteArrayList<>();
        try (ApplicationContext context = ApplicationContext.builder()
                .properties(Map.of("idempotency.enabled", true))
                .singletons(callers, new Step(2, steps, config -> config.clock(clock)
                        .callerResolver(request -> Optional.of("customizer"))), new Step(1, steps, config -> { }))
                .start()) {
            IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
            assertThat(engine.config().clock()).isSameAs(clock);
            assertThat(engine.config().callerResolver()).isNotSameAs(callers);
            assertThat(steps).containsExactly("1", "2");
        }
    }

    /** A customizer recording its order as it runs. */
    private record Step(int getOrder, List<String> steps, IdempotencyConfigCustomizer then)
            implements IdempotencyConfigCustomizer, Ordered {
        @Override
        public void customize(IdempotencyConfig.Builder config) {
            steps.add(String.valueOf(getOrder));
            then.customize(config);
        }
    }

    @Test
    void anEngineBeanOfTheApplicationIsUsedAsIs() {
        try (IdempotencyEngine own = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().methods(Set.of("PATCH")).build());
             ApplicationContext context = ApplicationContext.builder()
                     .properties(Map.of("idempotency.enabled", true, "idempotency.methods", List.of("POST")))
                     .singletons(own)
                     .start()) {
            assertThat(context.getBean(IdempotencyEngine.class)).isSameAs(own);
            assertThat(context.getBeansOfType(IdempotencyEngine.class)).hasSize(1);
        }
    }

    private static void withContext(Map<String, Object> properties, Consumer<ApplicationContext> check) {
        Map<String, Object> all = new HashMap<>(properties);
        all.put("idempotency.enabled", true);
        try (ApplicationContext context = ApplicationContext.run(all)) {
            check.accept(context);
        }
    }
}
