package dev.idempotency.framework.servlet;

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
 * Keeps the request body readable by the handler once the engine has read it: {@link #body()}
 * reads at most {@code limit + 1} bytes (a longer body is answered 413 before any handler runs),
 * and every later read gets a fresh stream over them. Until then the request passes through
 * untouched, unless {@link #keepsBodyOnRead()} says the first read is to be kept.
 */
public class BufferedBodyRequest extends HttpServletRequestWrapper {

    private final int limit;
    private byte[] body;

    public BufferedBodyRequest(HttpServletRequest request, int limit) {
        super(request);
        this.limit = limit;
    }

    /** The body, read now if it was not yet. */
    public final byte[] body() throws IOException {
        if (body == null) {
            body = super.getInputStream().readNBytes(limit + 1);
        }
        return body;
    }

    /** Whether a read before {@link #body()} keeps the body too; by default not. */
    protected boolean keepsBodyOnRead() {
        return false;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        if (body == null && !keepsBodyOnRead()) {
            return super.getInputStream();
        }
        return new BytesInputStream(body());
    }

    @Override
    public BufferedReader getReader() throws IOException {
        if (body == null && !keepsBodyOnRead()) {
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
