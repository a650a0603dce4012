package dev.idempotency.framework.internal;

import dev.idempotency.core.call.IdempotentCall;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * What the adapters' idempotent-method annotations share, read once per method and bean class: the
 * scope (checked), the parameters whose values are the call's input, and the method's generic return
 * type resolved against the bean's class, as which a repeat decodes the stored result. A method whose
 * result completes later ({@code Future}, {@code CompletionStage}, a reactive type) is refused.
 */
public final class AnnotatedMethod {

    /** Reactive types by name, so that none of their libraries is needed here. */
    private static final List<String> LATER = List.of("org.reactivestreams.Publisher",
            "io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi", "kotlinx.coroutines.flow.Flow");

    private final String name;
    private final String scope;
    private final int[] input;
    private final Type resultType;

    private AnnotatedMethod(String name, String scope, int[] input, Type resultType) {
        this.name = name;
        this.scope = scope;
        this.input = input;
        this.resultType = resultType;
    }

    /**
     * @param method     the annotated method
     * @param target     the bean's class, against which the return type's variables resolve
     * @param annotation its name, for the messages ({@code @IdempotentMethod})
     * @param input      the names of the parameters that make the input; all of them when empty
     * @param names      the method's parameter names, or {@code null} when they are not known
     * @throws IllegalStateException when the result completes later, the scope is invalid, or
     *                               {@code input} names no parameter of the method
     */
    public static AnnotatedMethod of(Method method, Class<?> target, String annotation, String scope, String[] input,
                                     String[] names) {
        if (completesLater(method.getReturnType())) {
            throw completesLater(annotation, method);
        }
        try {
            IdempotentCall.of(scope, "checked", null); // the scope's checks, once
        } catch (IllegalArgumentException invalid) {
            throw new IllegalStateException(annotation + " on " + method + ": " + invalid.getMessage(), invalid);
        }
        Type result = method.getReturnType() == void.class ? Object.class
                : resolve(method.getGenericReturnType(), variables(target));
        return new AnnotatedMethod(method.getDeclaringClass().getSimpleName() + "." + method.getName(), scope,
                indices(method, annotation, input, names), result);
    }

    /** The refusal of a method whose result completes later, for an adapter that knows more such types. */
    public static IllegalStateException completesLater(String annotation, Method method) {
        return new IllegalStateException(annotation + " runs methods whose result is there when they return; "
                + method + " returns a " + method.getReturnType().getName());
    }

    /** {@code Class.method}, for messages. */
    public String name() {
        return name;
    }

    /** The return type, its type variables resolved against the bean's class; {@code Object} for {@code void}. */
    public Type resultType() {
        return resultType;
    }

    /**
     * The call of these arguments under this key.
     *
     * @throws IllegalArgumentException when the key is {@code null}
     */
    public IdempotentCall call(Object key, Object[] arguments) {
        if (key == null) {
            throw new IllegalArgumentException("The key of " + name + " is null");
        }
        List<Object> values = Arrays.stream(input).mapToObj(i -> arguments[i]).toList();
        return IdempotentCall.of(scope, key.toString(), values);
    }

    static boolean completesLater(Class<?> type) {
        if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || Flow.Publisher.class.isAssignableFrom(type)) {
            return true;
        }
        return LATER.stream().anyMatch(name -> named(type, name));
    }

    private static boolean named(Class<?> type, String name) {
        if (type == null) {
            return false;
        }
        if (type.getName().equals(name)) {
            return true;
        }
        return named(type.getSuperclass(), name) || Arrays.stream(type.getInterfaces()).anyMatch(i -> named(i, name));
    }

    private static int[] indices(Method method, String annotation, String[] named, String[] names) {
        if (named.length == 0) {
            return IntStream.range(0, method.getParameterCount()).toArray();
        }
        if (names == null) {
            throw new IllegalStateException(annotation + "(input = ...) needs the parameter names of " + method
                    + ": compile with -parameters");
        }
        List<String> declared = Arrays.asList(names);
        return Arrays.stream(named).mapToInt(name -> {
            int index = declared.indexOf(name);
            if (index < 0) {
                throw new IllegalStateException(annotation + "(input) names " + name + ", which is not a parameter of "
                        + method);
            }
            return index;
        }).toArray();
    }

    /** The type arguments the bean's class gives its superclasses' and interfaces' type variables. */
    private static Map<TypeVariable<?>, Type> variables(Class<?> target) {
        Map<TypeVariable<?>, Type> bound = new HashMap<>();
        collect(target, bound);
        return bound;
    }

    private static void collect(Class<?> type, Map<TypeVariable<?>, Type> bound) {
        if (type == null || type == Object.class) {
            return;
        }
        List<Type> supers = new ArrayList<>(Arrays.asList(type.getGenericInterfaces()));
        if (type.getGenericSuperclass() != null) {
            supers.add(0, type.getGenericSuperclass());
        }
        for (Type supertype : supers) {
            if (supertype instanceof ParameterizedType parameterized) {
                Class<?> raw = (Class<?>) parameterized.getRawType();
                TypeVariable<?>[] variables = raw.getTypeParameters();
                Type[] arguments = parameterized.getActualTypeArguments();
                for (int i = 0; i < variables.length; i++) {
                    bound.putIfAbsent(variables[i], resolve(arguments[i], bound));
                }
                collect(raw, bound);
            } else if (supertype instanceof Class<?> plain) {
                collect(plain, bound);
            }
        }
    }

    private static Type resolve(Type type, Map<TypeVariable<?>, Type> bound) {
        if (type instanceof TypeVariable<?> variable) {
            Type known = bound.get(variable);
            return known != null ? known : resolve(variable.getBounds()[0], bound); // a method's own variable: its bound
        }
        if (type instanceof ParameterizedType parameterized) {
            Type[] arguments = Arrays.stream(parameterized.getActualTypeArguments()).map(t -> resolve(t, bound))
                    .toArray(Type[]::new);
            return new Parameterized((Class<?>) parameterized.getRawType(), arguments, parameterized.getOwnerType());
        }
        if (type instanceof GenericArrayType array) {
            Type component = resolve(array.getGenericComponentType(), bound);
            return component instanceof Class<?> plain ? plain.arrayType() : (GenericArrayType) () -> component;
        }
        if (type instanceof WildcardType wildcard) {
            return resolve(wildcard.getUpperBounds()[0], bound);
        }
        return type;
    }

    private record Parameterized(Class<?> raw, Type[] arguments, Type owner) implements ParameterizedType {

        @Override
        public Type[] getActualTypeArguments() {
            return arguments.clone();
        }

        @Override
        public Type getRawType() {
            return raw;
        }

        @Override
        public Type getOwnerType() {
            return owner;
        }

        @Override
        public String toString() {
            return raw.getName() + Arrays.toString(arguments).replace('[', '<').replace(']', '>');
        }
    }
}
