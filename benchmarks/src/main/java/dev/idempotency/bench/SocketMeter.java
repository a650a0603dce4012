package dev.idempotency.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a service sent to a server port, from the kernel's TCP counters of its established
 * connections ({@code ss -tinp}: {@code data_segs_out} per socket). On loopback (64 KB MSS,
 * {@code TCP_NODELAY}) each write of a message batch leaves as one data segment, so this counts
 * the client's writes on any client, JDBC or not: the round trips for one that writes each round
 * trip's messages at once (pgJDBC's Parse/Bind/Execute/Sync, a Redis command), an upper bound of
 * them for one that pipelines in separate writes. Connections opened during a phase count from
 * their start (their handshake included), closed ones are lost: with warm pools, neither happens
 * much. Empty when {@code ss} is missing.
 */
final class SocketMeter {

    private static final Pattern PID = Pattern.compile("pid=(\\d+),");
    private static final Pattern SEGMENTS = Pattern.compile("\\bdata_segs_out:(\\d+)");
    private static volatile boolean available = true;

    private SocketMeter() {
    }

    /** Per socket (local address and port) of process {@code pid} to {@code port}: data segments sent so far. */
    static Map<String, Long> segmentsTo(long pid, int port) {
        Map<String, Long> sockets = new HashMap<>();
        if (!available) {
            return sockets;
        }
        String output;
        try {
            Process ss = new ProcessBuilder("ss", "-tinpH", "state", "established", "( dport = :" + port + " )")
                    .redirectErrorStream(true).start();
            try (InputStream in = ss.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!ss.waitFor(10, TimeUnit.SECONDS) || ss.exitValue() != 0) {
                return sockets;
            }
        } catch (IOException e) {
            available = false;
            return sockets;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return sockets;
        }
        String socket = null;
        for (String line : output.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (!Character.isWhitespace(line.charAt(0))) {
                // Recv-Q Send-Q Local:Port Peer:Port users:(("java",pid=1,fd=2)) — without the state column
                Matcher owner = PID.matcher(line);
                String[] f = line.trim().split("\\s+");
                socket = owner.find() && Long.parseLong(owner.group(1)) == pid && f.length >= 3 ? f[2] : null;
            } else if (socket != null) {
                Matcher segments = SEGMENTS.matcher(line);
                if (segments.find()) {
                    sockets.put(socket, Long.parseLong(segments.group(1)));
                }
                socket = null;
            }
        }
        return sockets;
    }

    /** Segments sent between two readings; sockets that closed in between are left out. */
    static long delta(Map<String, Long> after, Map<String, Long> before) {
        long sum = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }
}
