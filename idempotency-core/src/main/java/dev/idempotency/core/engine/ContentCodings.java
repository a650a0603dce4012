package dev.idempotency.core.engine;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * A request body as its fingerprint sees it: the content, decoded from the {@code Content-Encoding}
 * it was sent in, so that one document sent plain, gzip- or deflate-compressed is one request.
 *
 * <p>{@code gzip} (and {@code x-gzip}) and {@code deflate} (zlib, or raw deflate as some clients send
 * it) are decoded, a list of them last-applied first; {@code identity} is none. Decoding streams and
 * stops after {@code limit + 1} bytes, so a small body that inflates past the limit (a zip bomb) costs
 * no more than the limit. A body that does not decode as its header says is taken as it came: a
 * framework or filter that decoded it already, but left the header, is not decoded twice.
 * (Frameworks that decompress request bodies themselves — Micronaut by default, Vert.x with
 * decompression on, Jetty's {@code GzipHandler} with inflation — remove the coding from the header.)
 */
final class ContentCodings {

    /** What {@link #decode} found. */
    sealed interface Decoded {
        /** The content to fingerprint. */
        record Content(byte[] bytes) implements Decoded {
        }

        /** Decoded, the content is longer than the limit. */
        record TooLarge() implements Decoded {
        }

        /** A coding the engine does not decode, such as {@code br}. */
        record Unsupported() implements Decoded {
        }
    }

    private ContentCodings() {
    }

    /**
     * @param contentEncoding every {@code Content-Encoding} header line of the request
     * @param body            the body as it arrived
     * @param limit           the most bytes the decoded content may have
     */
    static Decoded decode(List<String> contentEncoding, byte[] body, int limit) {
        List<String> codings = new ArrayList<>();
        for (String line : contentEncoding) {
            for (String coding : line.split(",")) {
                String name = coding.strip().toLowerCase(Locale.ROOT);
                if (!name.isEmpty() && !name.equals("identity")) {
                    if (!name.equals("gzip") && !name.equals("x-gzip") && !name.equals("deflate")) {
                        return new Decoded.Unsupported();
                    }
                    codings.add(name);
                }
            }
        }
        byte[] content = body;
        try {
            for (int i = codings.size() - 1; i >= 0; i--) {
                content = codings.get(i).equals("deflate") ? inflate(content, limit) : gunzip(content, limit);
                if (content.length > limit) {
                    return new Decoded.TooLarge();
                }
            }
        } catch (IOException notEncodedSo) {
            return new Decoded.Content(body);
        }
        return new Decoded.Content(content);
    }

    private static byte[] gunzip(byte[] in, int limit) throws IOException {
        try (InputStream gzip = new GZIPInputStream(new ByteArrayInputStream(in))) {
            return gzip.readNBytes(limit + 1);
        }
    }

    /** RFC 9110's deflate is zlib (RFC 1950); raw deflate (RFC 1951) is accepted too, as browsers do. */
    private static byte[] inflate(byte[] in, int limit) throws IOException {
        boolean zlib = in.length >= 2 && (in[0] & 0x0F) == 8 && ((in[0] & 0xFF) << 8 | (in[1] & 0xFF)) % 31 == 0;
        Inflater inflater = new Inflater(!zlib);
        try (InputStream inflating = new InflaterInputStream(new ByteArrayInputStream(in), inflater)) {
            byte[] out = inflating.readNBytes(limit + 1);
            if (out.length <= limit && !inflater.finished()) {
                throw new IOException("truncated deflate stream");
            }
            return out;
        } finally {
            inflater.end();
        }
    }
}
