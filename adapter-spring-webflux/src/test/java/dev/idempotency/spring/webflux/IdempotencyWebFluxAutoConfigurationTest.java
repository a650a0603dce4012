package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.spring.IdempotencyAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.web.server.WebFilter;

/**
 * The conditions: the filter in a reactive web application with {@code idempotency.enabled=true},
 * at {@code idempotency.order}, next to idempotency-spring's engine (whose servlet pieces stay out:
 * this class path has no servlet API); and the atomic mode over a blocking store refused at start, in our words.
 */
class IdempotencyWebFluxAutoConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
                    IdempotencyWebFluxAutoConfiguration.class));

    @Test
    void enabledInAReactiveApplicationTheFilterIsRegisteredAfterSpringSecurity() {
        runner.withPropertyValues("idempotency.enabled=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(IdempotencyWebFilter.class);
            assertThat(context.getBean(IdempotencyWebFilter.class).getOrder()).isEqualTo(-90);
            assertThat(context).doesNotHaveBean("idempotencyFilter"); // the servlet filter's registration
        });
    }

    @Test
    void theOrderIsTheApplicationsToSet() {
        runner.withPropertyValues("idempotency.enabled=true", "idempotency.order=-200")
                .run(context -> assertThat(context.getBean(IdempotencyWebFilter.class).getOrder()).isEqualTo(-200));
    }

    @Test
    void nothingUntilEnabled() {
        runner.run(context -> assertThat(context).doesNotHaveBean(WebFilter.class));
    }

    @Test
    void theAtomicModeOverABlockingStoreFailsTheStartInOurWords() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("idempotency.enabled=true", "idempotency.mode=atomic",
                        "spring.datasource.url=jdbc:h2:mem:atomic-refused;DB_CLOSE_DELAY=-1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage(IdempotencyWebFluxAutoConfiguration.ATOMIC_REFUSED);
                });
    }
}
