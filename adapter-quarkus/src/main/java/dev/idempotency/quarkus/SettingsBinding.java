package dev.idempotency.quarkus;

import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.PurgeSettings;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Binds idempotency-framework's settings classes, whose keys, defaults and validation are written
 * there once, from the application's configuration: each setter {@code setFooBar} reads
 * {@code <prefix>.foo-bar} through the configuration's own converters (so {@code 5s} and
 * {@code PT5S} both read as durations, as elsewhere in Quarkus); an absent key keeps the class's
 * default. A collection is a comma-separated list of strings.
 */
final class SettingsBinding {

    private SettingsBinding() {
    }

    static <T> T bind(T settings, String prefix) {
        Config config = ConfigProvider.getConfig();
        setters(settings.getClass()).forEach(setter -> {
            Class<?> type = setter.getParameterTypes()[0];
            String key = key(prefix, setter);
            Optional<?> value = Collection.class.isAssignableFrom(type)
                    ? config.getOptionalValues(key, String.class)
                            .map(values -> type == Set.class ? new LinkedHashSet<>(values) : values)
                    : config.getOptionalValue(key, MethodType.methodType(type).wrap().returnType());
            value.ifPresent(v -> set(setter, settings, v));
        });
        return settings;
    }

    /**
     * Fails on a key under {@code idempotency.} that no settings class (nor {@code others}) reads,
     * so a misspelt key stops the start instead of being ignored. Without idempotency-jdbc,
     * {@code idempotency.jdbc.*} is not checked.
     */
    static void refuseUnknownKeys(Set<String> others) {
        Set<String> known = new TreeSet<>(others);
        keys(IdempotencySettings.class, IdempotencySettings.PREFIX, known);
        keys(PurgeSettings.class, PurgeSettings.PREFIX, known);
        boolean jdbc = Classes.present("dev.idempotency.jdbc.JdbcStore");
        if (jdbc) {
            keys(JdbcSettings.class, JdbcSettings.PREFIX, known);
        }
        for (String name : ConfigProvider.getConfig().getPropertyNames()) {
            String key = name.replaceAll("\\[\\d+]$", "");
            if (key.startsWith(IdempotencySettings.PREFIX + ".") && !known.contains(key)
                    && (jdbc || !key.startsWith(JdbcSettings.PREFIX + "."))) {
                throw new IllegalArgumentException(name + " is not an idempotency setting; the keys are " + known);
            }
        }
    }

    private static void keys(Class<?> settings, String prefix, Set<String> keys) {
        setters(settings).forEach(setter -> keys.add(key(prefix, setter)));
    }

    private static Stream<Method> setters(Class<?> settings) {
        return Stream.of(settings.getMethods())
                .filter(method -> method.getName().startsWith("set") && method.getParameterCount() == 1);
    }

    private static String key(String prefix, Method setter) {
        return prefix + "." + setter.getName().substring(3).replaceAll("([a-z0-9])([A-Z])", "$1-$2")
                .toLowerCase(Locale.ROOT);
    }

    private static void set(Method setter, Object settings, Object value) {
        try {
            setter.invoke(settings, value);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
