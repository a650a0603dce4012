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
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real example service in a child JVM: {@code java -cp <classpath> <main class>} of an
 * {@link ExampleService} (the Javalin example on this JVM's test classpath, or the Vert.x example
 * on its own; {@code java -jar quarkus-run.jar} for Quarkus) with {@code PORT=0} and the given
 * environment, started and waited for until it prints its start-up line, which names the port it
 * bound; with {@link #start(ExampleService, String, Map)} the line must also name the service's
 * store ({@code JdbcStore}, {@code PgStore}).
 *
 * <p>{@link #close()} kills it with SIGKILL ({@link Process#destroyForcibly()}) — always, also when
 * a test fails — and so does a shutdown hook of the test JVM for any child still alive. The first
 * process of each service is first asked to write its {@link ClassDataArchive}, which the later
 * ones start from.
 */
final class ExampleProcess implements AutoCloseable {

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
    private final String startupLine;
    /** The archive this process is to write when closed; empty once it did or cannot. */
    private final AtomicReference<ClassDataArchive> makes;

    private ExampleProcess(String name, Process process, int port, Deque<String> output, String startupLine,
            ClassDataArchive makes) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.output = output;
        this.startupLine = startupLine;
        this.makes = new AtomicReference<>(makes);
    }

    /**
     * Starts {@code service} and waits for its start-up line, which must name the service's
     * framework and store: a Vert.x service that fell back to {@code JdbcStore} fails here.
     */
    static ExampleProcess start(ExampleService service, String name, Map<String, String> env) throws IOException {
        ExampleProcess started = launch(service, name, env);
        if (!started.startupLine.contains(service.expectedFramework())
                || !started.startupLine.contains(service.expectedStore())) {
            started.close();
            throw new IllegalStateException("Example " + name + " is not " + service.label() + ": its start-up line is "
                    + started.startupLine);
        }
        return started;
    }

    /**
     * Starts the Javalin service ({@link ExampleService#JAVALIN_JDBC}'s process, whatever store
     * {@code env} selects) and waits for its start-up line.
     *
     * @param name a label for failure messages and the child's output
     * @param env  the service's environment, e.g. {@code DATABASE_URL} and {@code IDEMPOTENCY_MODE};
     *             {@code PORT} is always 0
     */
    static ExampleProcess start(String name, Map<String, String> env) throws IOException {
        return launch(ExampleService.JAVALIN_JDBC, name, env);
    }

    private static ExampleProcess launch(ExampleService service, String name, Map<String, String> env)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        // Small and quick to start: the machine is shared, and the load here is modest.
        command.addAll(List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        List<String> launch = service.launchArguments();
        ClassDataArchive archive = ClassDataArchive.of(service, launch);
        ClassDataArchive.Use cds = archive.use();
        command.addAll(cds.options());
        command.addAll(launch);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.equals("DATABASE_URL") || k.startsWith("IDEMPOTENCY")
                || k.startsWith("REDIS_") || k.startsWith("QUARKUS_"));
        builder.environment().putAll(env);
        builder.environment().put("PORT", "0");

        Process process;
        try {
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            if (cds.maker()) {
                archive.abandon();
            }
            throw e;
        }
        RUNNING.add(process);
        Deque<String> output = new ArrayDeque<>();
        CompletableFuture<String> startup = new CompletableFuture<>();
        Thread reader = new Thread(() -> readOutput(name, process, output, startup), "example-output-" + name);
        reader.setDaemon(true);
        reader.start();
        try {
            String line = startup.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            Matcher m = STARTUP_LINE.matcher(line);
            m.find(); // the reader completed with the line that matched
            return new ExampleProcess(name, process, Integer.parseInt(m.group(1)), output, line,
                    cds.maker() ? archive : null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(process);
            if (cds.maker()) {
                archive.abandon();
            }
            throw new IllegalStateException("Interrupted while starting " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            kill(process);
            if (cds.maker()) {
                archive.abandon();
            }
            String why = e instanceof TimeoutException ? "did not start within " + START_TIMEOUT.toSeconds() + " s"
                    : "exited before it printed its start-up line";
            throw new IllegalStateException("Example " + name + " " + why + "; its output:\n"
                    + String.join("\n", snapshot(output)), e);
        }
    }

    private static void readOutput(String name, Process process, Deque<String> output, CompletableFuture<String> startup) {
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
                if (!startup.isDone() && m.find()) {
                    startup.complete(line);
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            startup.completeExceptionally(new IllegalStateException(name + " exited before it printed its start-up line"));
        }
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    /** The line the service printed when it started listening (names its store and mode). */
    String startupLine() {
        return startupLine;
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
        ClassDataArchive archive = makes.getAndSet(null);
        if (archive != null) {
            archive.abandon();
        }
    }

    /** SIGKILL, as {@link #kill()}; the maker of its service's archive writes it first while it runs. */
    @Override
    public void close() {
        ClassDataArchive archive = makes.getAndSet(null);
        if (archive != null && process.isAlive()) {
            archive.dump(process);
        } else if (archive != null) {
            archive.abandon();
        }
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
