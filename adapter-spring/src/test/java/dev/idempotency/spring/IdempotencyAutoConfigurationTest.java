package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.Mode;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.IdempotencyConfigCustomizer;
import dev.idempotency.testkit.OutageStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The auto-configuration's conditions and property binding, without a server: which beans exist
 * for which settings, that the application's beans reach the engine, and that nonsense fails the
 * start.
 */
class IdempotencyAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

    private static RequestView keyed(String key) {
        return RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(key)),
                "{\"item\":\"book\"}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void nothingIsConfiguredUnlessEnabled() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(IdempotencyEngine.class);
            assertThat(context).doesNotHaveBean(IdempotencyProperties.class);
        });
        runner.withPropertyValues("idempotency.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyEngine.class));
    }

    @Test
    void theDefaultsAreTheEngines() {
        runner.withPropertyValues("idempotency.enabled=true").run(context -> {
            IdempotencyConfig config = context.getBean(IdempotencyEngine.class).config();
            IdempotencyConfig defaults = IdempotencyConfig.defaults();
            assertThat(config.headerName()).isEqualTo(defaults.headerName());
            assertThat(config.methods()).isEqualTo(defaults.methods());
            assertThat(config.mode()).isEqualTo(defaults.mode());
            assertThat(config.ttl()).isEqualTo(defaults.ttl());
            assertThat(config.lease()).isEqualTo(defaults.lease());
            assertThat(config.inFlightWait()).isEqualTo(defaults.inFlightWait());
            assertThat(config.maxRequestBodyBytes()).isEqualTo(defaults.maxRequestBodyBytes());
            assertThat(config.maxStoredBodyBytes()).isEqualTo(4 << 20);
            assertThat(config.runAgainWhenNotStored()).isFalse();
            assertThat(config.replayedHeaders()).isEqualTo(defaults.replayedHeaders());
            assertThat(config.shareRecordsAcrossCallers()).isFalse();
            IdempotencyProperties properties = context.getBean(IdempotencyProperties.class);
            assertThat(properties.getPaths()).containsExactly("/**");
            assertThat(properties.getOrder()).isEqualTo(-90);
            assertThat(properties.getMetrics().isEnabled()).isTrue();
        });
    }

    @Test
    void everyKeyBindsWithTheMicronautAdaptersNames() {
        runner.withPropertyValues(
                "idempotency.enabled=true",
                "idempotency.header-name=X-Request-Key",
                "idempotency.methods=POST,PATCH",
                "idempotency.key-required=true",
                "idempotency.mode=optimistic",
                "idempotency.ttl=2h",
                "idempotency.lease=45s",
                "idempotency.renew-lease=false",
                "idempotency.in-flight-wait=2s",
                "idempotency.in-flight-poll-interval=20ms",
                "idempotency.retry-after=3s",
                "idempotency.max-request-body-bytes=2048",
                "idempotency.max-stored-body-bytes=4096",
                "idempotency.run-again-when-not-stored=true",
                "idempotency.replayed-headers=Location,X-Order-Seq",
                "idempotency.problem-type-base=https://errors.example.com/",
                "idempotency.share-records-across-callers=true",
                "idempotency.paths=/orders,/payments/**",
                "idempotency.order=5").run(context -> {
            IdempotencyConfig config = context.getBean(IdempotencyEngine.class).config();
            assertThat(config.headerName()).isEqualTo("X-Request-Key");
            assertThat(config.methods()).containsExactlyInAnyOrder("POST", "PATCH");
            assertThat(config.keyRequired()).isTrue();
            assertThat(config.mode()).isEqualTo(Mode.OPTIMISTIC);
            assertThat(config.ttl()).isEqualTo(Duration.ofHours(2));
            assertThat(config.lease()).isEqualTo(Duration.ofSeconds(45));
            assertThat(config.renewLease()).isFalse();
            assertThat(config.inFlightWait()).isEqualTo(Duration.ofSeconds(2));
            assertThat(config.inFlightPollInterval()).isEqualTo(Duration.ofMillis(20));
            assertThat(config.retryAfter()).isEqualTo(Duration.ofSeconds(3));
            assertThat(config.maxRequestBodyBytes()).isEqualTo(2048);
            assertThat(config.maxStoredBodyBytes()).isEqualTo(4096);
            assertThat(config.runAgainWhenNotStored()).isTrue();
            assertThat(config.replayedHeaders()).containsExactlyInAnyOrder("Location", "X-Order-Seq");
            assertThat(config.problemTypeBase()).isEqualTo("https://errors.example.com/");
            assertThat(config.shareRecordsAcrossCallers()).isTrue();
            IdempotencyProperties properties = context.getBean(IdempotencyProperties.class);
            assertThat(properties.getPaths()).containsExactly("/orders", "/payments/**");
            assertThat(properties.getOrder()).isEqualTo(5);
        });
    }

    @Test
    void theApplicationsBeansReachTheEngine() {
        TenantResolver tenants = request -> Optional.of("acme");
        CallerResolver callers = request -> Optional.ofNullable(request.header("X-Client"));
        BodyCanonicalizer canonicalizer = BodyCanonicalizer.rawBytes();
        ReplayPolicy policy = response -> false;
        List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        IdempotencyListener listener = events::add;
        OutageStore store = new OutageStore(new InMemoryStore());
        runner.withPropertyValues("idempotency.enabled=true")
                .withBean(TenantResolver.class, () -> tenants)
                .withBean(CallerResolver.class, () -> callers)
                .withBean(BodyCanonicalizer.class, () -> canonicalizer)
                .withBean(ReplayPolicy.class, () -> policy)
                .withBean(IdempotencyListener.class, () -> listener)
                .withBean(Store.class, () -> store)
                .run(context -> {
                    IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
                    assertThat(engine.config().tenantResolver()).isSameAs(tenants);
                    assertThat(engine.config().callerResolver()).isSameAs(callers);
                    assertThat(engine.config().canonicalizer()).isSameAs(canonicalizer);
                    assertThat(engine.config().replayPolicy()).isSameAs(policy);
                    // the store bean is the engine's: down, every keyed request is 503
                    store.outage(StorageUnavailableException.Reason.UNREACHABLE);
                    Decision decision = engine.before(keyed("store-bean-1"));
                    assertThat(decision).isInstanceOf(Decision.Respond.class);
                    assertThat(((Decision.Respond) decision).reply().status()).isEqualTo(503);
                    assertThat(events).isNotEmpty();
                });
    }

    @Test
    void everyCustomizerBeanAdjustsTheEngineInItsOrderAfterTheBeans() {
        runner.withPropertyValues("idempotency.enabled=true")
                .withBean(CallerResolver.class, () -> request -> Optional.of("bean"))
                .withUserConfiguration(Customizers.class)
                .run(context -> {
                    IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
                    assertThat(engine.config().clock()).isSameAs(Customizers.CLOCK);
                    assertThat(engine.config().callerResolver().resolve(keyed("customized"))).contains("customizer");
                    assertThat(context.getBean(Customizers.class).steps).containsExactly("first", "second");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {
        static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        final List<String> steps = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        IdempotencyConfigCustomizer second() {
            return config -> {
                steps.add("second");
                config.clock(CLOCK).callerResolver(request -> Optional.of("customizer"));
            };
        }

        @Bean
        @Order(1)
        IdempotencyConfigCustomizer first() {
            return config -> steps.add("first");
        }
    }

    @Test
    void anEngineBeanOfTheApplicationIsUsedAsIs() {
        IdempotencyEngine own = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        runner.withPropertyValues("idempotency.enabled=true", "idempotency.ttl=1h")
                .withBean(IdempotencyEngine.class, () -> own)
                .run(context -> assertThat(context.getBean(IdempotencyEngine.class)).isSameAs(own));
        own.close();
    }

    @Test
    void theFilterIsRegisteredOnlyInAServletWebApplication() {
        runner.withPropertyValues("idempotency.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
                .withPropertyValues("idempotency.enabled=true", "idempotency.order=7")
                .run(context -> {
                    FilterRegistrationBean<?> registration = context.getBean(FilterRegistrationBean.class);
                    assertThat(registration.getFilter()).isInstanceOf(IdempotencyFilter.class);
                    assertThat(registration.getOrder()).isEqualTo(7);
                    assertThat(registration.getUrlPatterns()).containsExactly("/*");
                });
    }

    @Test
    void aLeaseLongerThanTheTtlFailsTheStartWithAReportNamingBoth() {
        runner.withPropertyValues("idempotency.enabled=true", "idempotency.ttl=10s", "idempotency.lease=1m")
                .run(context -> {
                    assertThat(context).hasFailed();
                    // Boot's report of the failure, from the analyzers registered in spring.factories
                    FailureAnalysis analysis = SpringFactoriesLoader.forDefaultResourceLocation()
                            .load(FailureAnalyzer.class, null, FailureHandler.handleMessage((message, e) -> { }))
                            .stream().map(analyzer -> analyzer.analyze(context.getStartupFailure()))
                            .filter(Objects::nonNull).findFirst().orElseThrow();
                    assertThat(analysis.getDescription()).startsWith("Invalid idempotency settings: "
                            + "idempotency.lease (PT1M) must not be longer than idempotency.ttl (PT10S)");
                    assertThat(analysis.getAction()).contains("idempotency.lease or idempotency.ttl");
                });
    }

    @Test
    void theAtomicModeOverANonTransactionalStoreFailsTheStart() {
        runner.withPropertyValues("idempotency.enabled=true", "idempotency.mode=atomic")
                .run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause().hasMessageContaining("so use the reserve mode"));
    }

    @Test
    void aValueThatDoesNotConvertFailsTheStart() {
        runner.withPropertyValues("idempotency.enabled=true", "idempotency.ttl=a day")
                .run(context -> assertThat(context).hasFailed()
                        .getFailure().hasStackTraceContaining("idempotency.ttl"));
        runner.withPropertyValues("idempotency.enabled=true", "idempotency.mode=sometimes")
                .run(context -> assertThat(context).hasFailed()
                        .getFailure().hasStackTraceContaining("idempotency.mode"));
    }

    @Test
    void theConfigurationMetadataNamesEveryKey() throws Exception {
        String metadata;
        try (var in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String key : Set.of("idempotency.enabled", "idempotency.paths", "idempotency.order",
                "idempotency.header-name", "idempotency.methods", "idempotency.key-required", "idempotency.mode",
                "idempotency.ttl", "idempotency.lease", "idempotency.renew-lease", "idempotency.in-flight-wait",
                "idempotency.in-flight-poll-interval", "idempotency.retry-after",
                "idempotency.max-request-body-bytes", "idempotency.max-stored-body-bytes",
                "idempotency.run-again-when-not-stored",
                "idempotency.replayed-headers", "idempotency.problem-type-base",
                "idempotency.metrics.enabled", "idempotency.metrics.path-tag",
                "idempotency.jdbc.enabled", "idempotency.jdbc.datasource", "idempotency.jdbc.table-name",
                "idempotency.jdbc.statement-timeout", "idempotency.jdbc.row-level-security",
                "idempotency.jdbc.tenant-setting", "idempotency.jdbc.verify-schema",
                "idempotency.jdbc.initialize-schema", "idempotency.share-records-across-callers",
                "idempotency.purge.enabled", "idempotency.purge.interval", "idempotency.purge.initial-delay",
                "idempotency.purge.batch-size")) {
            assertThat(metadata).contains("\"name\": \"" + key + "\"");
        }
    }

    /**
     * The defaults the IDE shows (META-INF/additional-spring-configuration-metadata.json: the
     * processor cannot read them from the engine's defaults) are the ones that bind.
     */
    @Test
    void theDefaultsInTheMetadataAreTheBoundDefaults() throws Exception {
        JsonNode metadata;
        try (var in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(in);
        }
        Map<String, Object> declared = new TreeMap<>();
        for (JsonNode property : metadata.path("properties")) {
            if (property.has("defaultValue")) {
                JsonNode value = property.path("defaultValue");
                declared.put(property.path("name").asText(), value.isArray()
                        ? String.join(",", new ObjectMapper().convertValue(value, String[].class)) : value.asText());
            }
        }
        assertThat(declared).containsKeys("idempotency.ttl", "idempotency.lease", "idempotency.methods",
                "idempotency.jdbc.statement-timeout");
        declared.remove("idempotency.enabled"); // false: the runner switches it on
        String[] asProperties = declared.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        IdempotencyEngine plain = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
                .withPropertyValues("idempotency.enabled=true")
                .withPropertyValues(asProperties)
                .run(context -> {
                    IdempotencyConfig bound = context.getBean(IdempotencyEngine.class).config();
                    IdempotencyConfig defaults = plain.config();
                    assertThat(bound.headerName()).isEqualTo(defaults.headerName());
                    assertThat(bound.methods()).isEqualTo(defaults.methods());
                    assertThat(bound.keyRequired()).isEqualTo(defaults.keyRequired());
                    assertThat(bound.mode()).isEqualTo(defaults.mode());
                    assertThat(bound.ttl()).isEqualTo(defaults.ttl());
                    assertThat(bound.lease()).isEqualTo(defaults.lease());
                    assertThat(bound.renewLease()).isEqualTo(defaults.renewLease());
                    assertThat(bound.inFlightWait()).isEqualTo(defaults.inFlightWait());
                    assertThat(bound.inFlightPollInterval()).isEqualTo(defaults.inFlightPollInterval());
                    assertThat(bound.retryAfter()).isEqualTo(defaults.retryAfter());
                    assertThat(bound.maxRequestBodyBytes()).isEqualTo(defaults.maxRequestBodyBytes());
                    assertThat(bound.maxStoredBodyBytes()).isEqualTo(defaults.maxStoredBodyBytes());
                    assertThat(bound.runAgainWhenNotStored()).isEqualTo(defaults.runAgainWhenNotStored());
                    assertThat(bound.replayedHeaders()).isEqualTo(defaults.replayedHeaders());
                    assertThat(bound.problemTypeBase()).isEqualTo(defaults.problemTypeBase());
                    IdempotencyProperties properties = context.getBean(IdempotencyProperties.class);
                    assertThat(properties.getOrder()).isEqualTo(IdempotencyProperties.DEFAULT_ORDER);
                    assertThat(properties.getPaths()).containsExactly("/**");
                    IdempotencyJdbcProperties jdbc = context.getBean(IdempotencyJdbcProperties.class);
                    assertThat(jdbc.getTableName()).isEqualTo(dev.idempotency.jdbc.JdbcStore.DEFAULT_TABLE);
                    assertThat(jdbc.getStatementTimeout()).isEqualTo(dev.idempotency.jdbc.JdbcStore.DEFAULT_STATEMENT_TIMEOUT);
                    assertThat(jdbc.getTenantSetting()).isEqualTo(dev.idempotency.jdbc.JdbcStore.DEFAULT_TENANT_SETTING);
                });
        plain.close();
    }
}
