package dev.idempotency.core.call;

import java.lang.reflect.Type;

/**
 * Turns a call's input and result into bytes and a stored result back into a value. The input's bytes
 * are its fingerprint (as JSON, canonicalized by the engine first), so equal inputs must encode to
 * equal JSON values; {@code decode(encode(v), type)} must equal {@code v}. Thread-safe.
 */
public interface ResultCodec {

    /**
     * @return the value's JSON bytes ({@code null} included)
     * @throws IllegalArgumentException when the value cannot be encoded
     */
    byte[] encode(Object value);

    /**
     * @return the value of {@code type} that {@code bytes} encode
     * @throws IllegalStateException when they cannot be read as one
     */
    <T> T decode(byte[] bytes, Type type);

    /**
     * The default: Jackson's databind with a plain {@code ObjectMapper} (records and beans; give
     * {@link JacksonResultCodec#of} a mapper of yours for more). jackson-databind is an optional
     * dependency of the core: only this codec needs it.
     *
     * @throws IllegalStateException when jackson-databind is not on the class or module path
     */
    static ResultCodec json() {
        try {
            return JacksonResultCodec.standard();
        } catch (NoClassDefFoundError missing) {
            throw new IllegalStateException("The default result codec needs com.fasterxml.jackson.core:jackson-databind; "
                    + "add it, or give IdempotentCalls a ResultCodec of your own", missing);
        }
    }
}
