package dev.idempotency.examples.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Javalin example service in a child JVM: {@code java -cp <this JVM's test classpath>
 * dev.idempotency.examples.javalin.JavalinExample} with {@code PORT=0} and the given environment,
 * started and waited for until it prints its start-up line, which names the port it bound.
 *
 * <p>{@link #close()} kills it with SIGKILL ({@link Process#destroyForcibly()}) — always, also when
 * a test fails — and so does a shutdown hook of the test JVM for any child still alive.
 */
final class ExampleProcess implements AutoCloseable {

    static final String MAIN_CLASS = "dev.idempotency.examples.javalin.JavalinExample";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern STARTUP_LINE = Pattern.compile("listening on http://localhost:(\\d+) ");
    private static final int KEPT_LINES = 400;
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "example-process-reaper"));
    }

    private final String name;
    private final Process process;
    private final int port;
    private final Deque<String> output;

    private ExampleProcess(String name, Process process, int port, Deque<String> output) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.output = output;
    }

    /**
     * Starts the service and waits for its start-up line.
     *
     * @param name a label for failure messages and the child's output
     * @param env  the service's environment, e.g. {@code DATABASE_URL} and {@code IDEMPOTENCY_MODE};
     *             {@code PORT} is always 0
     */
    static ExampleProcess start(String name, Map<String, String> env) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        // Small and quick to start: the machine is shared, and the load here is modest.
        command.addAll(List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of("-cp", classPath(), MAIN_CLASS));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.equals("DATABASE_URL") || k.startsWith("IDEMPOTENCY")
                || k.startsWith("REDIS_"));
        builder.environment().putAll(env);
        builder.environment().put("PORT", "0");

        Process process = builder.start();
        RUNNING.add(process);
        Deque<String> output = new ArrayDeque<>();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> readOutput(name, process, output, port), "example-output-" + name);
        reader.setDaemon(true);
        reader.start();
        try {
            return new ExampleProcess(name, process, port.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(process);
            throw new IllegalStateException("Interrupted while starting " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            kill(process);
            String why = e instanceof TimeoutException ? "did not start within " + START_TIMEOUT.toSeconds() + " s"
                    : "exited before it printed its start-up line";
            throw new IllegalStateException("Example " + name + " " + why + "; its output:\n"
                    + String.join("\n", snapshot(output)), e);
        }
    }

    /**
     * The classpath the child runs on: this test JVM's own. Surefire may start tests from a
     * manifest-only jar, so its {@code surefire.test.class.path} property is preferred.
     */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static void readOutput(String name, Process process, Deque<String> output, CompletableFuture<Integer> port) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (output) {
                    output.addLast(line);
                    if (output.size() > KEPT_LINES) {
                        output.removeFirst();
                    }
                }
                Matcher m = STARTUP_LINE.matcher(line);
                if (!port.isDone() && m.find()) {
                    port.complete(Integer.parseInt(m.group(1)));
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            port.completeExceptionally(new IllegalStateException(name + " exited before it printed its start-up line"));
        }
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    /** The last lines the service printed (at most {@value #KEPT_LINES}). */
    List<String> output() {
        return snapshot(output);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no graceful stop, open transactions left to the database. */
    void kill() {
        kill(process);
    }

    @Override
    public void close() {
        kill(process);
    }

    private static void kill(Process process) {
        process.destroyForcibly();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                throw new IllegalStateException("An example process did not die after SIGKILL: " + process.pid());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            RUNNING.remove(process);
        }
    }

    private static List<String> snapshot(Deque<String> output) {
        synchronized (output) {
            return new ArrayList<>(output);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", port " + port + ")";
    }
}
