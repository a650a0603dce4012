package dev.idempotency.jakartars;

import dev.idempotency.core.adapter.HttpReply;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.RuntimeDelegate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The engine's replies as Jakarta REST responses, and response headers as the engine reads them. */
final class Replies {

    private Replies() {
    }

    /** Exactly the reply's status, headers and body bytes. */
    static Response response(HttpReply reply) {
        Response.ResponseBuilder builder = Response.status(reply.status());
        reply.headers().forEach((name, values) -> values.forEach(value -> builder.header(name, value)));
        return builder.entity(entity(reply)).build();
    }

    /**
     * The reply's body as an entity; none for an empty body without a {@code Content-Type}, to
     * which a runtime would otherwise give one of its own ({@code application/octet-stream} for
     * bytes, as Quarkus REST does).
     */
    static byte[] entity(HttpReply reply) {
        return reply.body().length == 0 && reply.header(HttpHeaders.CONTENT_TYPE) == null ? null : reply.body();
    }

    /** Replaces every header of {@code headers} with the reply's. */
    static void replaceHeaders(MultivaluedMap<String, Object> headers, HttpReply reply) {
        headers.clear();
        reply.headers().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
    }

    /**
     * {@link #replaceHeaders}, for a body that an entity coder already set up will encode: its
     * {@code Content-Encoding} stays, unless the reply names one.
     */
    static void replaceHeadersKeepingEncoding(MultivaluedMap<String, Object> headers, HttpReply reply) {
        List<Object> encoding = headers.get(HttpHeaders.CONTENT_ENCODING);
        replaceHeaders(headers, reply);
        if (encoding != null && reply.header(HttpHeaders.CONTENT_ENCODING) == null) {
            headers.put(HttpHeaders.CONTENT_ENCODING, encoding);
        }
    }

    /** Header values as strings, each as the runtime writes it ({@code MediaType}, {@code NewCookie}, ...). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Map<String, List<String>> strings(MultivaluedMap<String, Object> headers) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            List<String> strings = new ArrayList<>(values.size());
            for (Object value : values) {
                if (value == null) {
                    continue;
                }
                if (value instanceof String s) {
                    strings.add(s);
                } else {
                    RuntimeDelegate.HeaderDelegate delegate = delegateFor(value.getClass());
                    strings.add(delegate == null ? value.toString() : delegate.toString(value));
                }
            }
            out.put(name, strings);
        });
        return out;
    }

    private static RuntimeDelegate.HeaderDelegate<?> delegateFor(Class<?> type) {
        try {
            return RuntimeDelegate.getInstance().createHeaderDelegate(type);
        } catch (RuntimeException none) {
            return null;
        }
    }
}
