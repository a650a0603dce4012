package dev.idempotency.bench.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runner's own connection to the Redis server the services use, in a few lines of RESP (no
 * client library in the load generator's JVM): the server's command counts before and after each
 * turn ({@code INFO commandstats}), its process (for its CPU time), and removing the run's keys —
 * only those under a prefix the run chose, found with {@code SCAN MATCH}, never {@code FLUSHALL}.
 */
public final class RedisProbe implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RedisProbe(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code redis://[[user]:password@]host[:port][/db]}. */
    public static RedisProbe connect(String url) {
        URI uri = URI.create(url);
        if (!"redis".equals(uri.getScheme())) {
            throw new IllegalArgumentException("--redis-url must be redis://host:port (a standalone server), was " + url);
        }
        try {
            Socket socket = new Socket();
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()), 5_000);
            socket.setSoTimeout(30_000);
            RedisProbe probe = new RedisProbe(socket);
            if (uri.getRawUserInfo() != null) {
                String[] userInfo = uri.getRawUserInfo().split(":", 2);
                String password = URLDecoder.decode(userInfo.length > 1 ? userInfo[1] : userInfo[0], StandardCharsets.UTF_8);
                String user = userInfo.length > 1 && !userInfo[0].isEmpty() ? userInfo[0] : null;
                if (user == null) {
                    probe.command("AUTH", password);
                } else {
                    probe.command("AUTH", URLDecoder.decode(user, StandardCharsets.UTF_8), password);
                }
            }
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                probe.command("SELECT", path.substring(1));
            }
            return probe;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot reach Redis at " + uri.getHost() + ":" + uri.getPort(), e);
        }
    }

    /** Calls per command since the server started ({@code INFO commandstats}), e.g. {@code evalsha → 815}. */
    public Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : ((String) command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                int start = line.indexOf("calls=", colon) + "calls=".length();
                int end = line.indexOf(',', start);
                calls.put(line.substring("cmdstat_".length(), colon), Long.parseLong(line.substring(start, end)));
            }
        }
        return calls;
    }

    /** E.g. {@code 7.0.15}. */
    public String version() {
        return info("server", "redis_version");
    }

    /** The server's process id, as it reports it (in another PID namespace it is not ours to read). */
    public long processId() {
        return Long.parseLong(info("server", "process_id"));
    }

    private String info(String section, String field) {
        for (String line : ((String) command("INFO", section)).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new IllegalStateException("INFO " + section + " has no " + field);
    }

    /** Removes every key matching {@code prefix*} (SCAN MATCH + UNLINK); the count removed. */
    public long deleteKeys(String prefix) {
        if (prefix.isEmpty() || prefix.contains("*") || prefix.contains("?") || prefix.contains("[")) {
            throw new IllegalArgumentException("not a plain key prefix: " + prefix);
        }
        long removed = 0;
        String cursor = "0";
        do {
            List<?> reply = (List<?>) command("SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000");
            cursor = (String) reply.get(0);
            List<?> keys = (List<?>) reply.get(1);
            if (!keys.isEmpty()) {
                List<String> args = new ArrayList<>();
                args.add("UNLINK");
                keys.forEach(k -> args.add((String) k));
                removed += (Long) command(args.toArray(String[]::new));
            }
        } while (!cursor.equals("0"));
        return removed;
    }

    /** One command; the reply as a String, Long, List or null; an error reply throws. */
    public synchronized Object command(String... args) {
        try {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(request.toByteArray());
            out.flush();
            return reply();
        } catch (IOException e) {
            throw new UncheckedIOException("Redis: " + args[0], e);
        }
    }

    private Object reply() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("Redis: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(reply());
                }
                return items;
            }
            default:
                throw new IOException("Redis: unexpected reply type " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("Redis closed the connection");
            }
            line.append((char) c);
        }
        in.read(); // '\n'
        return line.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
