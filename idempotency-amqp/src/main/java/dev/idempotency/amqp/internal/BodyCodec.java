package dev.idempotency.amqp.internal;

import dev.idempotency.core.call.ResultCodec;
import java.lang.reflect.Type;

/**
 * A message body as a call's input, and no result: the body's bytes are the fingerprinted input as
 * they are (the engine compares a JSON body as JSON, any other byte for byte), and the handler's
 * result is nothing, stored as no bytes.
 */
final class BodyCodec implements ResultCodec {

    static final BodyCodec INSTANCE = new BodyCodec();

    private static final byte[] NOTHING = new byte[0];

    private BodyCodec() {
    }

    @Override
    public byte[] encode(Object value) {
        if (value == null) {
            return NOTHING;
        }
        if (value instanceof byte[] body) {
            return body;
        }
        throw new IllegalArgumentException("A message call encodes its body only, not a " + value.getClass().getName());
    }

    @Override
    public <T> T decode(byte[] bytes, Type type) {
        return null;
    }
}
