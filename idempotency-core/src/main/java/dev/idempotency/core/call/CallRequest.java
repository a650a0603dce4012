package dev.idempotency.core.call;

import dev.idempotency.core.adapter.RequestView;
import java.util.List;
import java.util.Optional;

/**
 * An {@link IdempotentCall} as the engine's request: method {@link IdempotentCalls#METHOD}, path
 * {@code /<scope>}, the key in the configured header (as an RFC 8941 string, so that it is taken
 * exactly), the encoded input as a JSON body. The configured caller resolver sees the call's caller
 * as the principal; {@link #unwrap} offers the call itself.
 */
final class CallRequest implements RequestView {

    static final String JSON = "application/json";

    private final IdempotentCall call;
    private final String keyHeader;
    private final byte[] body;

    CallRequest(IdempotentCall call, String keyHeader, byte[] body) {
        this.call = call;
        this.keyHeader = keyHeader;
        this.body = body;
    }

    @Override
    public String method() {
        return IdempotentCalls.METHOD;
    }

    @Override
    public String path() {
        return "/" + call.scope();
    }

    @Override
    public String query() {
        return null;
    }

    @Override
    public List<String> headers(String name) {
        if (name.equalsIgnoreCase(keyHeader)) {
            return List.of(quoted(call.key()));
        }
        return name.equalsIgnoreCase("Content-Type") ? List.of(JSON) : List.of();
    }

    @Override
    public byte[] body() {
        return body;
    }

    @Override
    public Optional<String> principalName() {
        return call.caller();
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(call) ? Optional.of(type.cast(call)) : Optional.empty();
    }

    /** {@code key} as an RFC 8941 sf-string: the engine reads back exactly {@code key}. */
    private static String quoted(String key) {
        return '"' + key.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
