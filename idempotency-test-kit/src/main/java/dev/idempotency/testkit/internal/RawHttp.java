package dev.idempotency.testkit.internal;

import dev.idempotency.testkit.RawResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, for what {@link java.net.http.HttpClient} will not send as given:
 * header bytes it refuses, and request targets it rewrites (it drops a {@code #fragment} and may
 * resolve dot segments). The request target goes on the request line exactly as passed.
 */
public final class RawHttp {

    private RawHttp() {
    }

    /**
     * Sends {@code POST target} with a JSON body and, unless {@code keyBytes} is null, an
     * {@code Idempotency-Key} header of exactly those bytes; reads the whole response (the
     * request asks the server to close the connection).
     */
    public static RawResponse post(URI base, String target, byte[] keyBytes, byte[] body) throws IOException {
        return exchange(base, keyedPost(base, target, keyBytes, body), false, false);
    }

    /**
     * Sends {@code POST target} with a JSON body and the key, and returns the open connection
     * without reading anything: the caller closes it to disconnect while the server works.
     */
    public static Socket sendAndHold(URI base, String target, String key, String body) throws IOException {
        Socket socket = new Socket(base.getHost(), base.getPort());
        try {
            socket.getOutputStream().write(keyedPost(base, target, key.getBytes(StandardCharsets.ISO_8859_1),
                    body.getBytes(StandardCharsets.UTF_8)));
            socket.getOutputStream().flush();
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private static byte[] keyedPost(URI base, String target, byte[] keyBytes, byte[] body) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("POST " + target + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort() + "\r\n"
                + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        if (keyBytes != null) {
            request.writeBytes("Idempotency-Key: ".getBytes(StandardCharsets.ISO_8859_1));
            request.writeBytes(keyBytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        request.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes(body);
        return request.toByteArray();
    }

    /** Sends {@code POST target} with a JSON body and the key {@code key} (none when null). */
    public static RawResponse post(URI base, String target, String key, String body) throws IOException {
        return post(base, target, key == null ? null : key.getBytes(StandardCharsets.ISO_8859_1),
                body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code request} exactly as given — request line, head and body, which may be malformed
     * (a body shorter than its {@code Content-Length}, a bad chunk size) — then half-closes the
     * connection, so the body ends there, and reads the whole response.
     */
    public static RawResponse send(URI base, byte[] request) throws IOException {
        return exchange(base, request, true, false);
    }

    /**
     * Sends {@code POST target} with {@code Content-Type}, the given header lines (each without its
     * CRLF, sent byte for byte: control bytes, non-ASCII bytes, repeats) and the body. The server
     * may answer and close before it read everything (a refused header, a body too large): its
     * answer is still read.
     */
    public static RawResponse post(URI base, String target, List<byte[]> headerLines, String contentType,
                                   byte[] body) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("POST " + target + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort() + "\r\n"
                + "Connection: close\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        for (byte[] line : headerLines) {
            request.writeBytes(line);
            request.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        request.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes(body);
        return exchange(base, request.toByteArray(), false, true);
    }

    private static RawResponse exchange(URI base, byte[] request, boolean halfClose, boolean mayCloseEarly)
            throws IOException {
        byte[] raw;
        IOException writeFailure = null;
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            try {
                socket.getOutputStream().write(request);
                socket.getOutputStream().flush();
                if (halfClose) {
                    socket.shutdownOutput();
                }
            } catch (IOException e) {
                if (!mayCloseEarly) {
                    throw e;
                }
                writeFailure = e;
            }
            raw = readAnswer(socket);
        } catch (IOException e) {
            if (writeFailure != null) {
                e.addSuppressed(writeFailure);
            }
            throw e;
        }
        return parse(raw);
    }

    /**
     * Everything the server sends until it closes. A server that answers and closes before it read
     * the whole request (Reactor Netty on a refused header) makes the kernel reset the connection,
     * which can arrive after its complete answer: that answer is kept; a reset before it is not.
     */
    private static byte[] readAnswer(Socket socket) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                received.write(buffer, 0, n);
            }
        } catch (SocketException reset) {
            if (!isCompleteWithLength(received.toByteArray())) {
                throw reset;
            }
        }
        return received.toByteArray();
    }

    /** Whether {@code raw} holds a response head and as many body bytes as its Content-Length says. */
    private static boolean isCompleteWithLength(byte[] raw) {
        int headEnd = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 0);
        if (headEnd < 0) {
            return false;
        }
        for (String line : new String(raw, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                try {
                    return raw.length >= headEnd + 4 + Long.parseLong(line.substring(colon + 1).trim());
                } catch (NumberFormatException e) {
                    return false;
                }
            }
        }
        return false;
    }

    static RawResponse parse(byte[] raw) throws IOException {
        int headEnd = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 0);
        if (headEnd < 0) {
            throw new IOException("no complete response head in " + raw.length + " bytes: "
                    + new String(raw, StandardCharsets.ISO_8859_1));
        }
        String[] lines = new String(raw, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
        String statusLine = lines[0];
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not a status line: " + statusLine);
        }
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(lines[i].substring(0, colon).trim(), n -> new ArrayList<>())
                        .add(lines[i].substring(colon + 1).trim());
            }
        }
        int bodyStart = headEnd + 4;
        byte[] body;
        List<String> encoding = headers.getOrDefault("Transfer-Encoding", List.of());
        List<String> length = headers.getOrDefault("Content-Length", List.of());
        if (encoding.stream().anyMatch(e -> e.toLowerCase(Locale.ROOT).contains("chunked"))) {
            body = dechunk(raw, bodyStart);
        } else if (!length.isEmpty()) {
            int n = Integer.parseInt(length.get(0));
            body = Arrays.copyOfRange(raw, bodyStart, Math.min(raw.length, bodyStart + n));
        } else {
            body = Arrays.copyOfRange(raw, bodyStart, raw.length);
        }
        return new RawResponse(statusLine, Integer.parseInt(parts[1]), headers, body);
    }

    private static byte[] dechunk(byte[] raw, int from) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] crlf = "\r\n".getBytes(StandardCharsets.ISO_8859_1);
        int at = from;
        while (true) {
            int lineEnd = indexOf(raw, crlf, at);
            if (lineEnd < 0) {
                throw new IOException("truncated chunked body");
            }
            String sizeLine = new String(raw, at, lineEnd - at, StandardCharsets.ISO_8859_1);
            int semicolon = sizeLine.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(raw, lineEnd + 2, size);
            at = lineEnd + 2 + size + 2;
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
