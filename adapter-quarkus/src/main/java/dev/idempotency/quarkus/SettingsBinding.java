package dev.idempotency.quarkus;

import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.InvalidSettingsException;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.PurgeSettings;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Binds idempotency-framework's settings classes, whose keys, defaults and validation are written
 * there once, from the application's configuration: each setter {@code setFooBar} reads
 * {@code <prefix>.foo-bar} through the configuration's own converters (so {@code 5s} and
 * {@code PT5S} both read as durations); an absent key keeps the class's default. A collection is a
 * comma-separated list of strings.
 *
 * <p>A duration written as a bare number other than {@code 0} is refused: Quarkus would read it as
 * seconds, Spring Boot reads the same key's bare number as milliseconds, so one
 * {@code idempotency.*} value would mean two things. A value that does not convert, or that the
 * settings class refuses, fails as an {@link InvalidSettingsException} naming the key; Quarkus shows
 * it as one line ({@link StartFailure}).
 */
final class SettingsBinding {

    private static final Pattern BARE_NUMBER = Pattern.compile("[-+]?\\d+(\\.\\d+)?");

    private SettingsBinding() {
    }

    static <T> T bind(T settings, String prefix) {
        Config config = ConfigProvider.getConfig();
        setters(settings.getClass()).forEach(setter -> {
            Class<?> type = setter.getParameterTypes()[0];
            String key = key(prefix, setter);
            Optional<?> value;
            try {
                if (type == Duration.class) {
                    refuseBareNumber(key, config.getConfigValue(key).getValue());
                }
                value = Collection.class.isAssignableFrom(type)
                        ? config.getOptionalValues(key, String.class)
                                .map(values -> type == Set.class ? new LinkedHashSet<>(values) : values)
                        : config.getOptionalValue(key, MethodType.methodType(type).wrap().returnType());
            } catch (IllegalArgumentException e) {
                if (e instanceof InvalidSettingsException invalid) {
                    throw invalid;
                }
                String what = key + "=" + config.getConfigValue(key).getValue() + " is not a valid ";
                throw new InvalidSettingsException(List.of(key), type == Duration.class
                        ? what + "duration: write it as 30s, 500ms, 24h or PT30S"
                        : what + type.getSimpleName().toLowerCase(Locale.ROOT) + ": " + e.getMessage());
            }
            value.ifPresent(v -> set(setter, key, settings, v));
        });
        return settings;
    }

    private static void refuseBareNumber(String key, String value) {
        if (value != null && BARE_NUMBER.matcher(value.trim()).matches() && !value.trim().equals("0")) {
            throw new InvalidSettingsException(List.of(key), key + "=" + value.trim() + " has no unit: write it as "
                    + value.trim() + "s, " + value.trim() + "ms, 24h or PT30S. A bare number is refused: Quarkus "
                    + "would read it as seconds, Spring Boot as milliseconds.");
        }
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
        var config = ConfigProvider.getConfig();
        for (String name : config.getPropertyNames()) {
            String key = name.replaceAll("\\[\\d+]$", "");
            // An environment variable is no setting the user wrote for this library (IDEMPOTENCY_STORE may
            // be the application's own): only properties and system properties are checked.
            if (key.startsWith(IdempotencySettings.PREFIX + ".") && !known.contains(key) && !fromEnvironment(config, name)
                    && (jdbc || !key.startsWith(JdbcSettings.PREFIX + "."))) {
                throw new InvalidSettingsException(List.of(name), name + " is not an idempotency setting; the keys are "
                        + known);
            }
        }
    }

    private static boolean fromEnvironment(org.eclipse.microprofile.config.Config config, String name) {
        String source = config.getConfigValue(name).getSourceName();
        return source != null && source.startsWith("EnvConfigSource");
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

    private static void set(Method setter, String key, Object settings, Object value) {
        try {
            setter.invoke(settings, value);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException refused && !(refused instanceof InvalidSettingsException)) {
                String message = refused.getMessage();
                throw new InvalidSettingsException(List.of(key), message != null && message.contains(key) ? message
                        : key + "=" + value + " is refused: " + message);
            }
            throw e.getCause() instanceof RuntimeException cause ? cause : new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
