package dev.idempotency.micronaut;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response body stream ({@code InputStream}, {@code StreamedFile}) that tells a
 * {@link StreamEnd} how it ended. The server reads it on its blocking executor, so the end of the
 * stream is dealt with right there, before the read that returns it: the response completes only
 * after that. A close before the end may come from an event loop and is handed to
 * {@code executor}.
 */
final class WatchedInputStream extends FilterInputStream {

    private final StreamEnd end;
    private final Executor executor;
    private final AtomicBoolean ended = new AtomicBoolean();

    WatchedInputStream(InputStream source, StreamEnd end, Executor executor) {
        super(source);
        this.end = end;
        this.executor = executor;
    }

    @Override
    public int read() throws IOException {
        try {
            return sentAt(super.read());
        } catch (IOException | RuntimeException e) {
            failed(e);
            throw e;
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        try {
            return sentAt(super.read(buffer, offset, length));
        } catch (IOException | RuntimeException e) {
            failed(e);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (ended.compareAndSet(false, true)) {
                try {
                    executor.execute(end::abandoned);
                } catch (RejectedExecutionException shuttingDown) {
                    // The lease expires by itself.
                }
            }
        }
    }

    /** Passes a read's result on, once the end of the stream (-1) has been dealt with. */
    private int sentAt(int read) throws IOException {
        if (read == -1 && ended.compareAndSet(false, true)) {
            try {
                end.sent();
            } catch (RuntimeException refused) {
                throw new IOException("The response body is broken off: its request was not applied", refused);
            }
        }
        return read;
    }

    private void failed(Exception cause) {
        if (ended.compareAndSet(false, true)) {
            end.failed(cause);
        }
    }
}
