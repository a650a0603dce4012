package dev.idempotency.spring;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Keeps the request body readable by the controller once the engine has read it. Spring's
 * {@code ContentCachingRequestWrapper} does not fit: it caches what the consumer reads, after the
 * fact, and the engine needs the bytes before the controller runs. At most {@code limit + 1}
 * bytes are read; a longer body is answered 413 by the engine before any controller runs. Until
 * the engine asks for the body, the request is passed through untouched.
 */
final class BufferedBodyRequest extends HttpServletRequestWrapper {

    private final int limit;
    private byte[] body;

    BufferedBodyRequest(HttpServletRequest request, int limit) {
        super(request);
        this.limit = limit;
    }

    byte[] body() throws IOException {
        if (body == null) {
            body = super.getInputStream().readNBytes(limit + 1);
        }
        return body;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        return body == null ? super.getInputStream() : new BytesInputStream(body);
    }

    @Override
    public BufferedReader getReader() throws IOException {
        if (body == null) {
            return super.getReader();
        }
        String encoding = getCharacterEncoding();
        Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }

    private static final class BytesInputStream extends ServletInputStream {
        private final ByteArrayInputStream in;

        BytesInputStream(byte[] bytes) {
            this.in = new ByteArrayInputStream(bytes);
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
            return in.available() == 0;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
            try {
                if (!isFinished()) {
                    listener.onDataAvailable();
                }
                listener.onAllDataRead();
            } catch (IOException e) {
                listener.onError(e);
            }
        }
    }
}
