package dev.idempotency.framework.internal;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The key of an idempotent method on a framework without an expression language: a parameter's name,
 * then properties separated by dots ({@code command.id}, {@code orderId}). A property is a no-argument
 * public method of that name (a record's component), its {@code get}/{@code is} getter, a public
 * field, or a map's entry. Parsed once per method; each property's accessor is found once per class.
 */
public final class KeyPath {

    private final String expression;
    private final int parameter;
    private final List<Property> properties;

    private KeyPath(String expression, int parameter, List<Property> properties) {
        this.expression = expression;
        this.parameter = parameter;
        this.properties = properties;
    }

    /**
     * @param names the method's parameter names, or {@code null} when they are not known
     * @throws IllegalStateException when the path is malformed or its first name is no parameter
     */
    public static KeyPath parse(String expression, Method method, String annotation, String[] names) {
        String[] segments = expression.split("\\.", -1);
        if (Arrays.stream(segments).anyMatch(s -> !s.matches("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*"))) {
            throw new IllegalStateException(annotation + "(key = \"" + expression + "\") on " + method
                    + " is not a parameter's name followed by properties, such as command.id");
        }
        if (names == null) {
            throw new IllegalStateException(annotation + "(key) needs the parameter names of " + method
                    + ": compile with -parameters");
        }
        int parameter = Arrays.asList(names).indexOf(segments[0]);
        if (parameter < 0) {
            throw new IllegalStateException(annotation + "(key = \"" + expression + "\") names " + segments[0]
                    + ", which is not a parameter of " + method);
        }
        return new KeyPath(expression, parameter,
                Arrays.stream(segments).skip(1).map(Property::new).toList());
    }

    /**
     * The path's value over these arguments.
     *
     * @throws IllegalArgumentException when it is {@code null} (or a value on the way is), or a value
     *                                  has no such property
     */
    public Object key(Object[] arguments) {
        Object value = arguments[parameter];
        for (Property property : properties) {
            if (value == null) {
                break;
            }
            value = property.of(value, expression);
        }
        if (value == null) {
            throw new IllegalArgumentException("The key " + expression + " is null");
        }
        return value;
    }

    @Override
    public String toString() {
        return expression;
    }

    /** One property, its accessor found once per class. */
    private static final class Property {

        private final String name;
        private final Map<Class<?>, Function<Object, Object>> accessors = new ConcurrentHashMap<>();

        Property(String name) {
            this.name = name;
        }

        Object of(Object value, String expression) {
            Function<Object, Object> accessor = accessors.computeIfAbsent(value.getClass(), this::accessor);
            if (accessor == null) {
                throw new IllegalArgumentException("The key " + expression + ": " + value.getClass().getName()
                        + " has no property " + name);
            }
            return accessor.apply(value);
        }

        private Function<Object, Object> accessor(Class<?> type) {
            if (Map.class.isAssignableFrom(type)) {
                return map -> ((Map<?, ?>) map).get(name);
            }
            String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
            for (String candidate : List.of(name, "get" + capitalized, "is" + capitalized)) {
                Method method = method(type, candidate);
                if (method != null) {
                    return target -> invoke(method, target);
                }
            }
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                for (Field field : c.getDeclaredFields()) {
                    if (field.getName().equals(name) && Modifier.isPublic(field.getModifiers())
                            && !Modifier.isStatic(field.getModifiers()) && field.trySetAccessible()) {
                        return target -> read(field, target);
                    }
                }
            }
            return null;
        }

        private static Method method(Class<?> type, String name) {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                for (Method method : c.getDeclaredMethods()) {
                    if (method.getName().equals(name) && method.getParameterCount() == 0
                            && method.getReturnType() != void.class && !Modifier.isStatic(method.getModifiers())
                            && Modifier.isPublic(method.getModifiers())
                            && method.trySetAccessible()) {
                        return method;
                    }
                }
            }
            return null;
        }

        private static Object invoke(Method method, Object target) {
            try {
                return method.invoke(target);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        private static Object read(Field field, Object target) {
            try {
                return field.get(target);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
