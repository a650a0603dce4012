package dev.idempotency.micronaut;

import dev.idempotency.core.adapter.CapturedResponse;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.core.type.Argument;
import io.micronaut.core.type.MutableHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpHeaders;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.body.ByteBody;
import io.micronaut.http.body.MediaTypeProvider;
import io.micronaut.http.body.MessageBodyHandlerRegistry;
import io.micronaut.http.body.MessageBodyWriter;
import io.micronaut.http.server.types.CustomizableResponseType;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteInfo;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Captures a response as the client will receive it. In a response filter the body is still an
 * object (encoding happens after the filter chain), so it is encoded here with the server's own
 * writers and media-type rules, and the bytes are put back as the body: what is stored is then
 * exactly what is sent.
 */
final class ResponseCapture {

    /** Writes a byte array unchanged, whatever the media type. */
    private static final MessageBodyWriter<byte[]> VERBATIM = new MessageBodyWriter<>() {
        @Override
        public boolean isWriteable(Argument<byte[]> type, MediaType mediaType) {
            return true;
        }

        @Override
        public void writeTo(Argument<byte[]> type, MediaType mediaType, byte[] body, MutableHeaders headers,
                            OutputStream out) {
            try {
                out.write(body);
            } catch (IOException e) {
                throw new io.micronaut.http.codec.CodecException("Could not write the response body", e);
            }
        }
    };

    private final MessageBodyHandlerRegistry writers;

    ResponseCapture(MessageBodyHandlerRegistry writers) {
        this.writers = writers;
    }

    /**
     * Encodes the body, sets the bytes (and the media type used) back on {@code response}, and
     * returns them with the status and headers. Streamed and file bodies cannot be captured: they
     * come back as {@link #uncaptured} and the response is left untouched.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    CapturedResponse capture(HttpRequest<?> request, MutableHttpResponse<?> response) {
        Object body = response.body();
        if (request.getMethod() == HttpMethod.HEAD || !isCapturable(body)) {
            return uncaptured(response);
        }
        if (body == null) {
            return CapturedResponse.of(response.code(), headersOf(response), new byte[0]);
        }
        RouteInfo<?> route = (RouteInfo<?>) RouteAttributes.getRouteInfo(response).orElse(null);
        MediaType mediaType = mediaTypeOf(request, response, route, body);
        byte[] bytes = body instanceof byte[] raw ? raw : encode(response, route, mediaType, body);
        if (response.getContentType().isEmpty()) {
            response.contentType(mediaType);
        }
        MutableHttpResponse<byte[]> encoded = (MutableHttpResponse) response;
        encoded.body(bytes);
        encoded.bodyWriter(VERBATIM);
        return CapturedResponse.of(response.code(), headersOf(response), bytes);
    }

    @SuppressWarnings("unchecked")
    private byte[] encode(MutableHttpResponse<?> response, RouteInfo<?> route, MediaType mediaType, Object body) {
        // The server's own choice of writer (ResponseLifecycle): the response's, else the route's
        // declared body type, else the runtime type of the body.
        Argument<Object> type = route != null
                ? (Argument<Object>) route.getResponseBodyType()
                : Argument.of((Class<Object>) body.getClass());
        MessageBodyWriter<Object> writer = (MessageBodyWriter<Object>) response.getBodyWriter().orElse(null);
        if (writer == null) {
            writer = writers.findWriter(type, List.of(mediaType)).orElse(null);
        }
        if (writer == null || !type.isInstance(body) || !writer.isWriteable(type, mediaType)) {
            type = Argument.ofInstance(body);
            writer = writers.getWriter(type, List.of(mediaType));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        writer.writeTo(type, mediaType, body, response.getHeaders(), out);
        return out.toByteArray();
    }

    /** The media type the server would send: the response's, the body's, the route's, else JSON. */
    private static MediaType mediaTypeOf(HttpRequest<?> request, MutableHttpResponse<?> response, RouteInfo<?> route,
                                         Object body) {
        MediaType set = response.getContentType().orElse(null);
        if (set != null) {
            return set;
        }
        if (!(body instanceof String) && !(body instanceof byte[]) && body instanceof MediaTypeProvider provider) {
            return provider.getMediaType();
        }
        if (route == null) {
            return MediaType.APPLICATION_JSON_TYPE;
        }
        List<MediaType> produces = route.getProduces();
        Iterator<MediaType> accepted = request.accept().iterator();
        if (accepted.hasNext()) {
            MediaType first = accepted.next();
            if (produces.contains(first)) {
                return first;
            }
        }
        return produces.isEmpty() ? MediaType.APPLICATION_JSON_TYPE : produces.get(0);
    }

    /** Bodies that are streamed or read from a file as they are sent: they cannot be held in memory. */
    private static boolean isCapturable(Object body) {
        if (body == null) {
            return true;
        }
        return !(Publishers.isConvertibleToPublisher(body)
                || body instanceof CustomizableResponseType
                || body instanceof File
                || body instanceof Path
                || body instanceof InputStream
                || body instanceof ByteBody
                || body instanceof java.nio.ByteBuffer
                || body instanceof io.micronaut.core.io.buffer.ByteBuffer<?>
                || body.getClass().getName().startsWith("io.netty."));
    }

    /** The status and headers of a response whose body is not held: a success is stored without it. */
    static CapturedResponse uncaptured(MutableHttpResponse<?> response) {
        return CapturedResponse.uncaptured(response.code(), headersOf(response));
    }

    private static Map<String, List<String>> headersOf(MutableHttpResponse<?> response) {
        MutableHttpHeaders headers = response.getHeaders();
        Map<String, List<String>> copy = new LinkedHashMap<>();
        for (String name : headers.names()) {
            copy.put(name, headers.getAll(name));
        }
        return copy;
    }
}
