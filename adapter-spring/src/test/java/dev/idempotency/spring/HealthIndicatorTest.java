package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.OutageStore;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code idempotency} health indicator: each reason the store gives, another failure without its
 * text, and when it is there at all. {@code FreshDatabaseStartTest} shows it in {@code /actuator/health}.
 */
class HealthIndicatorTest {

    private final OutageStore store = new OutageStore(new InMemoryStore());
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
            .withPropertyValues("idempotency.enabled=true");

    private Health health(Store over) {
        Health[] result = new Health[1];
        runner.withBean(Store.class, () -> over).run(context ->
                result[0] = context.getBean("idempotencyHealthIndicator", HealthIndicator.class).health());
        return result[0];
    }

    @Test
    void upWhileTheStoreAnswers() {
        Health health = health(store);
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(StorageUnavailableException.Reason.class)
    void downWithTheStoresReason(StorageUnavailableException.Reason reason) {
        store.outage(reason);
        Health health = health(store);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).isEqualTo(Map.of("reason", reason.name()));
    }

    @Test
    void anyOtherFailureIsUnexpectedWithoutItsText() {
        InMemoryStore delegate = new InMemoryStore();
        Store broken = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("check")) {
                        throw new IllegalStateException("secret detail");
                    }
                    return method.invoke(delegate, args);
                });
        Health health = health(broken);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).isEqualTo(Map.of("reason", "UNEXPECTED"));
    }

    @Test
    void presentOnlyWithBootsHealthModuleAndUnlessTurnedOff() {
        runner.run(context -> assertThat(context).hasBean("idempotencyHealthIndicator"));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("idempotencyHealthIndicator"));
        runner.withPropertyValues("management.health.idempotency.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("idempotencyHealthIndicator"));
    }
}
