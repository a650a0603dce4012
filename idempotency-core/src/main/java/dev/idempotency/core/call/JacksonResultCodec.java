package dev.idempotency.core.call;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Objects;

/**
 * {@link ResultCodec} over a Jackson {@link ObjectMapper}. Its errors name the type, never the
 * content: an input or a result may hold what must not reach a log.
 */
public final class JacksonResultCodec implements ResultCodec {

    private final ObjectMapper mapper;

    private JacksonResultCodec(ObjectMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    /** A codec over {@code mapper}, configured as the application likes (modules, naming). */
    public static JacksonResultCodec of(ObjectMapper mapper) {
        return new JacksonResultCodec(mapper);
    }

    static JacksonResultCodec standard() {
        return new JacksonResultCodec(new ObjectMapper());
    }

    @Override
    public byte[] encode(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot encode a " + value.getClass().getName() + " as JSON", e);
        }
    }

    @Override
    public <T> T decode(byte[] bytes, Type type) {
        try {
            return mapper.readValue(bytes, mapper.constructType(type));
        } catch (IOException e) {
            throw new IllegalStateException("Cannot decode a stored result as " + type.getTypeName(), e);
        }
    }
}
