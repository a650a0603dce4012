package dev.idempotency.examples.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, so a request can carry bytes no HTTP client would send: control
 * characters and non-ASCII bytes in a header, a header repeated, an empty one.
 */
final class RawHttp {

    /** The answer: status 0 when the server closed the connection without one. */
    record Response(int status, Map<String, String> headers, String body, String failure) {

        String contentType() {
            return headers.getOrDefault("content-type", "");
        }

        String describe() {
            String shortBody = body.length() > 300 ? body.substring(0, 300) + "…" : body;
            return status == 0 ? "no answer (" + failure + ")" : status + " [" + contentType() + "] " + shortBody;
        }
    }

    private RawHttp() {
    }

    /**
     * Sends {@code POST path} with the given extra header lines (each without its CRLF, sent
     * byte for byte), {@code Content-Type} and body, and {@code Connection: close}; reads the
     * answer until the server closes the connection.
     */
    static Response post(int port, String path, List<byte[]> headerLines, String contentType, byte[] body)
            throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.writeBytes(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n"
                + "Content-Type: " + contentType + "\r\nContent-Length: " + body.length + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        for (byte[] line : headerLines) {
            head.writeBytes(line);
            head.writeBytes(new byte[] {'\r', '\n'});
        }
        head.writeBytes(new byte[] {'\r', '\n'});

        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            String writeFailure = null;
            try {
                out.write(head.toByteArray());
                out.write(body);
                out.flush();
            } catch (IOException e) {
                // The server may answer and close before it read everything (a rejected header, a
                // body too large): its answer is still there to read.
                writeFailure = e.toString();
            }
            byte[] raw;
            try {
                raw = readAll(socket.getInputStream());
            } catch (IOException e) {
                return new Response(0, Map.of(), "", e + (writeFailure == null ? "" : "; writing: " + writeFailure));
            }
            return parse(raw, writeFailure);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            all.write(buffer, 0, n);
        }
        return all.toByteArray();
    }

    private static Response parse(byte[] raw, String writeFailure) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.1 ") || end < 0) {
            return new Response(0, Map.of(), "", "not an HTTP response: '" + text.substring(0, Math.min(80, text.length()))
                    + "'" + (writeFailure == null ? "" : "; writing: " + writeFailure));
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].substring(9, 12));
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.merge(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim(), (a, b) -> a + ", " + b);
            }
        }
        byte[] body = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8), null);
    }

    private static byte[] dechunk(byte[] chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < chunked.length) {
            int lineEnd = indexOfCrlf(chunked, i);
            if (lineEnd < 0) {
                break;
            }
            String sizeLine = new String(chunked, i, lineEnd - i, StandardCharsets.US_ASCII);
            int semicolon = sizeLine.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                break;
            }
            out.write(chunked, lineEnd + 2, Math.min(size, chunked.length - lineEnd - 2));
            i = lineEnd + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOfCrlf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** {@code name: value} as bytes, the value taken byte for byte. */
    static byte[] headerLine(String name, byte[] value) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        line.writeBytes((name + ": ").getBytes(StandardCharsets.US_ASCII));
        line.writeBytes(value);
        return line.toByteArray();
    }

    /** The header lines' values as the server's parser sees them, for oracles: bytes read as ISO-8859-1. */
    static List<String> values(List<byte[]> lines) {
        List<String> values = new ArrayList<>();
        for (byte[] line : lines) {
            String text = new String(line, StandardCharsets.ISO_8859_1);
            values.add(text.substring(text.indexOf(':') + 1));
        }
        return values;
    }
}
