package dev.idempotency.spring;

import dev.idempotency.core.call.ResultCodec;
import java.lang.reflect.Type;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import org.springframework.beans.factory.BeanFactory;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link ResultCodec} over the application's Jackson 3 mapper (Spring Boot 4's {@code JsonMapper}
 * bean, with the modules and settings the application gave it). Its errors name the type, never the
 * content, as {@link dev.idempotency.core.call.JacksonResultCodec}'s.
 */
final class JsonMapperResultCodec implements ResultCodec {

    private final ObjectMapper mapper;

    JsonMapperResultCodec(ObjectMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    /** Over the application's {@code ObjectMapper} bean, or a plain {@code JsonMapper} when it has none. */
    static ResultCodec of(BeanFactory beans) {
        return new JsonMapperResultCodec(beans.getBeanProvider(ObjectMapper.class).getIfUnique(JsonMapper::new));
    }

    @Override
    public byte[] encode(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("Cannot encode a " + value.getClass().getName() + " as JSON", e);
        }
    }

    @Override
    public <T> T decode(byte[] bytes, Type type) {
        try {
            return mapper.readValue(bytes, mapper.constructType(type));
        } catch (JacksonException e) {
            throw new IllegalStateException("Cannot decode a stored result as " + type.getTypeName(), e);
        }
    }
}
