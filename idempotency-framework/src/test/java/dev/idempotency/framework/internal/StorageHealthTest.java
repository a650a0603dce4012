package dev.idempotency.framework.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import java.lang.reflect.Proxy;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class StorageHealthTest {

    @Test
    void upWhenTheStoreAnswers() {
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults())) {
            assertThat(StorageHealth.downReason(engine)).isEmpty();
        }
    }

    @Test
    void downWithTheReasonWhenTheTableIsMissing() {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:health-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (IdempotencyEngine engine = new IdempotencyEngine(JdbcStore.builder(database).build(),
                IdempotencyConfig.defaults())) {
            assertThat(StorageHealth.downReason(engine)).contains("NOT_PROVISIONED");
        }
    }

    @Test
    void anUnexpectedFailureIsDownUnexpectedAndItsTextIsNotLogged() {
        Logger logger = (Logger) LoggerFactory.getLogger(StorageHealth.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        Store working = new InMemoryStore();
        Store failing = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("check")) {
                        throw new IllegalStateException("secret-connection-string");
                    }
                    return method.invoke(working, args);
                });
        try (IdempotencyEngine engine = new IdempotencyEngine(failing, IdempotencyConfig.defaults())) {
            assertThat(StorageHealth.downReason(engine)).contains("UNEXPECTED");
        } finally {
            logger.detachAppender(logged);
        }
        assertThat(logged.list).singleElement().satisfies(event -> {
            assertThat(event.getFormattedMessage()).contains("IllegalStateException")
                    .doesNotContain("secret-connection-string");
            assertThat(event.getThrowableProxy()).isNull();
        });
    }
}
