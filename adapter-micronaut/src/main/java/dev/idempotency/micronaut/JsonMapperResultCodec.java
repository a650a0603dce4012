package dev.idempotency.micronaut;

import dev.idempotency.core.call.ResultCodec;
import io.micronaut.context.BeanContext;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Optional;

/**
 * Results as JSON through the application's Micronaut {@link JsonMapper} (Micronaut Serialization's,
 * or Jackson databind's), so they encode as the application's HTTP bodies do; loaded only when
 * micronaut-json-core is on the class path.
 */
final class JsonMapperResultCodec implements ResultCodec {

    private final JsonMapper mapper;

    private JsonMapperResultCodec(JsonMapper mapper) {
        this.mapper = mapper;
    }

    static Optional<ResultCodec> of(BeanContext beans) {
        return beans.findBean(JsonMapper.class).map(JsonMapperResultCodec::new);
    }

    @Override
    public byte[] encode(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("Cannot encode a " + (value == null ? "null" : value.getClass().getName())
                    + " as JSON", e);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T decode(byte[] bytes, Type type) {
        try {
            return (T) mapper.readValue(bytes, Argument.of(type));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("Cannot decode a stored result as " + type.getTypeName(), e);
        }
    }
}
