package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.r2dbc.R2dbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A WebFlux application on Boot's R2DBC with an {@code IdempotencyEngine} bean of its own (PostgreSQL,
 * a schema of its own per test): its {@code R2dbcStore} bean is purged on {@code idempotency.purge.*};
 * an invalid {@code idempotency.*} value still fails the start naming the key; the engine keys it
 * sets are named at start as not read; an atomic lease PostgreSQL would cut short fails the start; and
 * with its store not a bean, the start says nothing purges it.
 */
class R2dbcOwnEngineTest {

    private static final Duration PURGE_LIMIT = Duration.ofSeconds(20);

    private final PostgresTestSchema schema = new PostgresTestSchema();
    private final Logger startLog = (Logger) LoggerFactory.getLogger("dev.idempotency.spring.ApplicationEngine");
    private final ListAppender<ILoggingEvent> said = new ListAppender<>();
    private ConfigurableApplicationContext context;

    R2dbcOwnEngineTest() {
        said.start();
        startLog.addAppender(said);
    }

    /** What the start logged about the application's engine. */
    private List<String> said() {
        return said.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @AfterEach
    void stop() {
        startLog.detachAppender(said);
        if (context != null) {
            context.close();
        }
        schema.close();
    }

    private void start(Class<?> engine, String... settings) {
        R2dbcOrderService.createTables(schema); // no Flyway here
        List<String> args = new ArrayList<>(R2dbcFreshDatabaseTest.arguments(schema));
        args.addAll(List.of(settings));
        // Boot would reset Logback, and with it the appender that hears the start
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
        try {
            context = new SpringApplication(R2dbcFreshDatabaseTest.OrdersService.class, engine)
                    .run(args.toArray(String[]::new));
        } finally {
            System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
        }
    }

    @Test
    void itsStoreBeanIsPurgedAndTheEngineKeysItSetsAreNamedAsNotRead() throws Exception {
        start(EngineOverAStoreBean.class, "--idempotency.ttl=1h", "--idempotency.mode=optimistic",
                "--idempotency.purge.interval=250ms", "--idempotency.purge.initial-delay=0s");

        assertThat(said()).singleElement().asString().startsWith("The application defines its own IdempotencyEngine "
                + "bean, whose IdempotencyConfig decides: idempotency.mode, idempotency.ttl are not read");
        assertThat(context.getBean(IdempotencyEngine.class).config().ttl()).isEqualTo(EngineOverAStoreBean.TTL);
        assertThat(R2dbcFreshDatabaseTest.post(context, UUID.randomUUID().toString(), "book").statusCode())
                .isEqualTo(201);
        assertThat(R2dbcFreshDatabaseTest.count(schema, "SELECT count(*) FROM idempotency_keys")).isEqualTo(1);

        long deadline = System.nanoTime() + PURGE_LIMIT.toNanos();
        long left = 1;
        while (left > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100); // the purge of the application's R2dbcStore bean, on its schedule
            left = R2dbcFreshDatabaseTest.count(schema, "SELECT count(*) FROM idempotency_keys");
        }
        assertThat(left).as("the record, expired after the engine's 1 s ttl, purged within " + PURGE_LIMIT).isZero();
    }

    @Test
    void anInvalidSettingFailsTheStartNamingTheKey() {
        assertThatThrownBy(() -> start(EngineOverAStoreBean.class, "--idempotency.ttl=-1"))
                .hasStackTraceContaining("idempotency.ttl must be a positive duration; it is PT-0.001S");
    }

    @Test
    void itsAtomicLeaseOverItsR2dbcStoreOnPostgresIsCheckedToo() {
        assertThatThrownBy(() -> start(AtomicEngineWithAShortLease.class))
                .hasStackTraceContaining("IdempotencyConfig.lease) is PT2S, shorter than PT5S");
    }

    @Test
    void anEngineWhoseStoreIsNoBeanIsNamedAsPurgedByNothing() {
        start(EngineOverItsOwnStore.class);

        assertThat(said()).singleElement().asString().startsWith("The application defines its own IdempotencyEngine "
                + "bean and no Store or AsyncStore bean: nothing purges expired records");
        assertThat(context.getBeanNamesForType(R2dbcStore.class)).as("no store of the auto-configuration's").isEmpty();
    }

    @Configuration(proxyBeanMethods = false)
    static class EngineOverAStoreBean {

        static final Duration TTL = Duration.ofSeconds(1);

        @Bean
        R2dbcStore store(ConnectionFactory connectionFactory) {
            return R2dbcOrderService.storeWithItsTable(connectionFactory);
        }

        @Bean(destroyMethod = "close")
        IdempotencyEngine idempotencyEngine(R2dbcStore store) {
            return new IdempotencyEngine(store, IdempotencyConfig.builder().ttl(TTL).lease(Duration.ofMillis(500)).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AtomicEngineWithAShortLease {

        @Bean
        R2dbcStore store(ConnectionFactory connectionFactory) {
            return R2dbcStore.create(connectionFactory);
        }

        @Bean(destroyMethod = "close")
        IdempotencyEngine idempotencyEngine(R2dbcStore store) {
            return new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC)
                    .lease(Duration.ofSeconds(2)).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EngineOverItsOwnStore {

        @Bean(destroyMethod = "close")
        IdempotencyEngine idempotencyEngine(ConnectionFactory connectionFactory) {
            return new IdempotencyEngine(R2dbcOrderService.storeWithItsTable(connectionFactory),
                    IdempotencyConfig.defaults());
        }
    }
}
