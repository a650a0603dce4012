package dev.idempotency.bench.http;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection, used by one thread: writes a prepared request and reads
 * the response with a fixed buffer — status, the few headers the load needs, and the body
 * (Content-Length or chunked) skipped. Kept minimal so the load generator spends little CPU on a
 * machine it shares with the server and the database.
 */
final class HttpConnection implements AutoCloseable {

    /** What the load needs from a response. */
    record Response(int status, boolean replayed) {
    }

    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final int READ_TIMEOUT_MS = 30_000;

    private final InetSocketAddress address;
    private final byte[] buffer = new byte[16 * 1024];
    private int position;
    private int limit;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    HttpConnection(InetSocketAddress address) {
        this.address = address;
    }

    /** Sends {@code request} (a complete HTTP/1.1 message) and reads the answer. */
    Response exchange(byte[] request, int length) throws IOException {
        if (socket == null) {
            open();
        }
        try {
            out.write(request, 0, length);
            out.flush();
            return readResponse();
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private void open() throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout(READ_TIMEOUT_MS);
        s.connect(address, CONNECT_TIMEOUT_MS);
        socket = s;
        in = s.getInputStream();
        out = s.getOutputStream();
        position = 0;
        limit = 0;
    }

    private Response readResponse() throws IOException {
        String statusLine = readLine();
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
            throw new IOException("Not an HTTP/1.x status line: " + statusLine);
        }
        int status = Integer.parseInt(statusLine, 9, 12, 10);
        long contentLength = -1;
        boolean chunked = false;
        boolean replayed = false;
        boolean close = statusLine.startsWith("HTTP/1.0");
        for (String line = readLine(); !line.isEmpty(); line = readLine()) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String value = line.substring(colon + 1).trim();
            if (is(line, colon, "content-length")) {
                contentLength = Long.parseLong(value);
            } else if (is(line, colon, "transfer-encoding")) {
                chunked = value.toLowerCase(java.util.Locale.ROOT).contains("chunked");
            } else if (is(line, colon, "idempotent-replayed")) {
                replayed = value.equalsIgnoreCase("true");
            } else if (is(line, colon, "connection")) {
                close = value.equalsIgnoreCase("close");
            }
        }
        if (chunked) {
            for (long size = chunkSize(); size > 0; size = chunkSize()) {
                skip(size);
                readLine();
            }
            while (!readLine().isEmpty()) {
                // trailers
            }
        } else if (contentLength > 0) {
            skip(contentLength);
        } else if (contentLength < 0 && status >= 200 && status != 204 && status != 304) {
            close = true; // body until end of stream: not something our services send
        }
        if (close) {
            close();
        }
        return new Response(status, replayed);
    }

    private static boolean is(String line, int colon, String name) {
        return colon == name.length() && line.regionMatches(true, 0, name, 0, colon);
    }

    private long chunkSize() throws IOException {
        String line = readLine();
        int end = line.indexOf(';');
        return Long.parseLong((end < 0 ? line : line.substring(0, end)).trim(), 16);
    }

    private String readLine() throws IOException {
        StringBuilder sb = null;
        while (true) {
            for (int i = position; i < limit; i++) {
                if (buffer[i] == '\n') {
                    String part = new String(buffer, position, i - position, StandardCharsets.ISO_8859_1);
                    position = i + 1;
                    String line = sb == null ? part : sb.append(part).toString();
                    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
                }
            }
            // a line longer than what is buffered: keep what we have and read on
            if (sb == null) {
                sb = new StringBuilder();
            }
            sb.append(new String(buffer, position, limit - position, StandardCharsets.ISO_8859_1));
            position = limit;
            fill();
        }
    }

    private void skip(long count) throws IOException {
        while (count > 0) {
            if (position == limit) {
                fill();
            }
            int n = (int) Math.min(count, limit - position);
            position += n;
            count -= n;
        }
    }

    private void fill() throws IOException {
        int n = in.read(buffer, 0, buffer.length);
        if (n < 0) {
            throw new EOFException("Connection closed by the server");
        }
        position = 0;
        limit = n;
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }
}
