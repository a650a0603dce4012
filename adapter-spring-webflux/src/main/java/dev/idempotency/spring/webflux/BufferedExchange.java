package dev.idempotency.spring.webflux;

import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Mono;

/**
 * An exchange whose request body the filter has read ({@link BufferedRequest}), for a handler that
 * takes it as form or multipart data. The exchange WebFlux created parses those from the request's
 * body itself, which can be read only once: a URL-encoded form is therefore read through that
 * exchange's own cached form data (which Spring Security's CSRF check may have read already) and
 * held as its re-encoding ({@link #formBody}); multipart data is parsed again from the held bytes
 * with the application's codecs, and deleted by {@link #cleanupMultipart} when the exchange has ended.
 */
final class BufferedExchange extends ServerWebExchangeDecorator {

    private static final ResolvableType MULTIPART_DATA = ResolvableType.forClassWithGenerics(
            MultiValueMap.class, String.class, Part.class);

    private final Mono<MultiValueMap<String, Part>> multipartData;
    private volatile boolean multipartRead;

    /** {@code exchange}: one whose request is a {@link BufferedRequest}. */
    BufferedExchange(ServerWebExchange exchange, ServerCodecConfigurer codecs) {
        super(exchange);
        this.multipartData = Mono.defer(() -> readMultipart(exchange.getRequest(), codecs, exchange.getLogPrefix()))
                .cache();
    }

    @Override
    public Mono<MultiValueMap<String, Part>> getMultipartData() {
        multipartRead = true;
        return multipartData;
    }

    /**
     * Deletes the parts parsed here (a large file part is kept in a temporary file), as WebFlux
     * does for its own exchange's once the exchange has ended: the filter calls it then.
     */
    @Override
    public Mono<Void> cleanupMultipart() {
        if (!multipartRead) {
            return Mono.empty();
        }
        return multipartData.onErrorComplete()
                .flatMapIterable(MultiValueMap::values)
                .flatMapIterable(parts -> parts)
                .flatMap(part -> part.delete().onErrorComplete())
                .then();
    }

    /** Whether the request's body is a URL-encoded form, to be read with {@link #formBody}. */
    static boolean isForm(ServerHttpRequest request) {
        MediaType type = request.getHeaders().getContentType();
        return type != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type);
    }

    /** The exchange's form data (parsed at most once, whoever asks first), re-encoded in its charset. */
    static Mono<byte[]> formBody(ServerWebExchange exchange) {
        MediaType type = exchange.getRequest().getHeaders().getContentType();
        Charset charset = type != null && type.getCharset() != null ? type.getCharset() : StandardCharsets.UTF_8;
        return exchange.getFormData().map(form -> {
            StringBuilder body = new StringBuilder();
            form.forEach((name, values) -> values.forEach(value -> {
                body.append(body.length() == 0 ? "" : "&").append(URLEncoder.encode(name, charset));
                if (value != null) {
                    body.append('=').append(URLEncoder.encode(value, charset));
                }
            }));
            return body.toString().getBytes(charset);
        });
    }

    @SuppressWarnings("unchecked")
    private static Mono<MultiValueMap<String, Part>> readMultipart(ServerHttpRequest request, ServerCodecConfigurer codecs,
                                                                    String logPrefix) {
        MediaType type = request.getHeaders().getContentType();
        if (type == null || !MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type)) {
            return Mono.just(new LinkedMultiValueMap<>());
        }
        for (HttpMessageReader<?> reader : codecs.getReaders()) {
            if (reader.canRead(MULTIPART_DATA, MediaType.MULTIPART_FORM_DATA)) {
                return ((HttpMessageReader<MultiValueMap<String, Part>>) reader)
                        .readMono(MULTIPART_DATA, request, Hints.from(Hints.LOG_PREFIX_HINT, logPrefix))
                        .switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new));
            }
        }
        return Mono.error(new IllegalStateException("No HttpMessageReader for " + type));
    }
}
