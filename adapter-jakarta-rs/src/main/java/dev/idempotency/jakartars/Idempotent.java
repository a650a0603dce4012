package dev.idempotency.jakartars;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Puts a resource method (or every method of a resource class) under Idempotency-Key handling,
 * whatever paths {@link IdempotencyFeature} covers and whatever its HTTP method, with settings of
 * its own. The annotation on a method wins over the one on its class. It is a name binding too: the
 * application's own filters annotated with it run on the same resources.
 */
@NameBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Idempotent {

    /** Answer 400 {@code idempotency_key_missing} when the key is missing; {@code false}: as the engine is configured. */
    boolean keyRequired() default false;

    /**
     * How long this resource's records live, as an ISO-8601 duration ({@code "PT1H"}); empty: the
     * engine's. A lease longer than it is shortened to it.
     */
    String ttl() default "";
}
