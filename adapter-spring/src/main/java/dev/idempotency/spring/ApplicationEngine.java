package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.IdempotencySettings;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;

/**
 * What the start says when the application defines its own {@link IdempotencyEngine} bean: the
 * {@code idempotency.*} settings are still bound and checked (an invalid ttl or lease fails the
 * start naming the key), and the engine keys it sets ({@link IdempotencySettings#ENGINE_KEYS}) are
 * named in a warning as not read, since the engine's own {@code IdempotencyConfig} decides; and
 * when no store bean is there to purge, a warning says that nothing purges the engine's store.
 */
final class ApplicationEngine {

    private static final Logger log = LoggerFactory.getLogger(ApplicationEngine.class);

    private ApplicationEngine() {
    }

    /** Whether the engine bean is the application's, not {@link IdempotencyAutoConfiguration}'s. */
    static boolean isTheApplications(ConfigurableListableBeanFactory beans) {
        String[] names = beans.getBeanNamesForType(IdempotencyEngine.class, true, false);
        return Arrays.stream(names).noneMatch(name -> beans.containsBeanDefinition(name)
                && declaredByTheAutoConfiguration(beans.getBeanDefinition(name)));
    }

    private static boolean declaredByTheAutoConfiguration(BeanDefinition definition) {
        MethodMetadata method = definition instanceof AnnotatedBeanDefinition annotated
                ? annotated.getFactoryMethodMetadata() : null;
        return method != null && method.getDeclaringClassName().equals(IdempotencyAutoConfiguration.class.getName());
    }

    private static boolean isSet(Environment environment, String key) {
        ConfigurationPropertyName name = ConfigurationPropertyName.of(key);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.getConfigurationProperty(name) != null
                    || source.containsDescendantOf(name) == ConfigurationPropertyState.PRESENT) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks the settings and warns about the ones the application's engine does not read.
     *
     * @param purged whether a store bean is there for the scheduled purge
     * @throws dev.idempotency.framework.InvalidSettingsException when the settings cannot work
     */
    static void report(IdempotencyProperties properties, Environment environment, boolean purged) {
        properties.toConfigBuilder();
        List<String> ignored = IdempotencySettings.ENGINE_KEYS.stream().filter(key -> isSet(environment, key)).toList();
        if (!ignored.isEmpty()) {
            log.warn("The application defines its own IdempotencyEngine bean, whose IdempotencyConfig decides: {} "
                    + "not read; set them in that IdempotencyConfig, or remove the bean to have them read",
                    String.join(", ", ignored) + (ignored.size() == 1 ? " is" : " are"));
        }
        if (!purged) {
            log.warn("The application defines its own IdempotencyEngine bean and no Store or AsyncStore bean: nothing "
                    + "purges expired records. Declare the engine's store as a bean (an R2dbcStore or JdbcStore @Bean) "
                    + "to have idempotency.purge.* purge it, or run a PurgeScheduler yourself");
        }
    }
}
