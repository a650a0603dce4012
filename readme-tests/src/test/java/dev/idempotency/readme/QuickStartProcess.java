package dev.idempotency.readme;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A built quick start, running: {@code java -cp <classpath> <main> <args>} (or {@code java -jar
 * <launcher> <args>}) in its project directory with {@code PORT}, {@code MICRONAUT_SERVER_PORT} and
 * {@code QUARKUS_HTTP_PORT} set to a free port, its output in a log.
 */
final class QuickStartProcess implements AutoCloseable {

    static final Duration START_LIMIT = Duration.ofSeconds(60);
    /** Quick to start on a small, shared machine: no optimising compiler, one GC thread. */
    static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":1}";
    /** At most two applications run at once, whatever the test engine's threads: 2 cores. */
    private static final Semaphore RUNNING = new Semaphore(2);
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final URI base;
    private final Path log;

    private QuickStartProcess(Process process, URI base, Path log) {
        this.process = process;
        this.base = base;
        this.log = log;
    }

    /** Starts the application and waits until it answers HTTP; fails with the log's end when it exits first. */
    static QuickStartProcess start(Path dir, List<String> launch, Map<String, String> environment,
            List<String> args, Path log) throws Exception {
        RUNNING.acquire();
        try {
            return launch(dir, launch, environment, args, log);
        } catch (Exception | AssertionError e) {
            RUNNING.release();
            throw e;
        }
    }

    private static QuickStartProcess launch(Path dir, List<String> launch, Map<String, String> environment,
            List<String> args, Path log) throws Exception {
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(javaExecutable()));
        command.addAll(JVM_OPTIONS);
        command.addAll(launch);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        builder.environment().putAll(Map.of("PORT", String.valueOf(port),
                "MICRONAUT_SERVER_PORT", String.valueOf(port), "QUARKUS_HTTP_PORT", String.valueOf(port)));
        QuickStartProcess started = new QuickStartProcess(builder.start(), URI.create("http://127.0.0.1:" + port),
                log);
        try {
            started.awaitListening();
        } catch (Exception | AssertionError e) {
            started.stop();
            throw e;
        }
        return started;
    }

    private void awaitListening() throws Exception {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("The application exited with " + process.exitValue() + "; " + tail(log));
            }
            try {
                get("/orders");
                return; // any answer: it listens
            } catch (IOException notYet) {
                Thread.sleep(200); // polling a port that is not open yet
            }
        }
        throw new AssertionError("The application did not listen within " + START_LIMIT + "; " + tail(log));
    }

    /** {@code POST /orders} of one order under {@code key}; without the header when {@code key} is null. */
    HttpResponse<String> postOrder(String key) throws Exception {
        return postOrder(key, Map.of());
    }

    /** {@link #postOrder(String)} with these headers too. */
    HttpResponse<String> postOrder(String key, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/orders")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(ORDER));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        headers.forEach(request::header);
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    String tail() {
        return tail(log);
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            return "last lines of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40),
                    lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            stop();
        } finally {
            RUNNING.release();
        }
    }

    private void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
        }
    }
}
