package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleContractTest.RunningExample;
import dev.idempotency.examples.ExampleSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The built service ({@code target/quarkus-app/quarkus-run.jar}, which the build makes before the
 * tests) in a child JVM, started with the environment variables that spell given
 * {@link ExampleSettings} and waited for until it prints its start-up line, which names the port it
 * bound. A service that exits with status 2 (a setting it refuses) is an
 * {@link IllegalArgumentException} with the reason it printed, as {@code ExampleSettings} throws
 * in the services started in the test's JVM.
 */
final class QuarkusProcess implements RunningExample {

    private static final Path RUNNER = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final Pattern STARTUP_LINE = Pattern.compile("listening on http://[^:]+:(\\d+) ");
    private static final String REFUSAL = "Cannot start the example: ";
    /**
     * A class-data archive of the service's classes (JDK dynamic CDS): the first service of a test
     * run that starts writes it when it exits, the later ones map it and start about a third sooner.
     * Made afresh in every test JVM, as the build may have changed the jars.
     */
    private static final Path ARCHIVE = Path.of("target", "quarkus-example.jsa");
    private static final Path ARCHIVING = Path.of("target", "quarkus-example.jsa.part");
    private static final AtomicBoolean ARCHIVER_RUNNING = new AtomicBoolean();

    static {
        try {
            Files.deleteIfExists(ARCHIVE);
            Files.deleteIfExists(ARCHIVING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final Process process;
    private final int port;
    private final String startupLine;
    private final boolean archiving;

    private QuarkusProcess(Process process, int port, String startupLine, boolean archiving) {
        this.process = process;
        this.port = port;
        this.startupLine = startupLine;
        this.archiving = archiving;
    }

    /** Starts the service with {@code settings} and waits until it listens. */
    static QuarkusProcess start(ExampleSettings settings) throws IOException, InterruptedException {
        if (!Files.isRegularFile(RUNNER)) {
            throw new IllegalStateException(RUNNER + " is missing: build the module (mvn package) before its tests");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // small and quick to start: one process per test on a shared machine
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        boolean archiving = false;
        if (Files.isRegularFile(ARCHIVE)) {
            command.add("-XX:SharedArchiveFile=" + ARCHIVE);
        } else if (ARCHIVER_RUNNING.compareAndSet(false, true)) {
            archiving = true;
            command.add("-XX:ArchiveClassesAtExit=" + ARCHIVING);
        }
        command.addAll(List.of("-jar", RUNNER.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.equals("PORT") || name.equals("HOST") || name.equals("DATABASE_URL")
                || name.startsWith("IDEMPOTENCY") || name.startsWith("REDIS_") || name.startsWith("QUARKUS_"));
        env.putAll(environment(settings));
        Process process = builder.start();
        List<String> output = new ArrayList<>();
        CompletableFuture<String> started = new CompletableFuture<>();
        Thread reader = new Thread(() -> read(process, output, started), "quarkus-example-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String line = started.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Matcher port = STARTUP_LINE.matcher(line);
            port.find(); // the reader completed with a line that matched
            return new QuarkusProcess(process, Integer.parseInt(port.group(1)), line, archiving);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            if (archiving) { // the archive of a service that did not start would hold too few classes
                Files.deleteIfExists(ARCHIVING);
                ARCHIVER_RUNNING.set(false);
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
            String printed;
            synchronized (output) {
                printed = String.join("\n", output);
            }
            if (!process.isAlive() && process.exitValue() == 2 && printed.contains(REFUSAL)) {
                throw new IllegalArgumentException(printed.substring(printed.indexOf(REFUSAL) + REFUSAL.length()).trim());
            }
            throw new IllegalStateException("The Quarkus example did not start"
                    + (e instanceof TimeoutException ? " within " + START_TIMEOUT_SECONDS + " s" : "")
                    + "; its output:\n" + printed, e);
        }
    }

    /** The environment variables {@link ExampleSettings#from} reads back as {@code settings}. */
    static Map<String, String> environment(ExampleSettings settings) {
        Map<String, String> env = new HashMap<>();
        env.put("PORT", Integer.toString(settings.port()));
        settings.host().ifPresent(host -> env.put("HOST", host));
        settings.databaseUrl().ifPresent(url -> env.put("DATABASE_URL", url));
        settings.redisUrl().ifPresent(url -> env.put("REDIS_URL", url));
        env.put("REDIS_KEY_PREFIX", settings.redisKeyPrefix());
        settings.store().ifPresent(store -> env.put("IDEMPOTENCY_STORE", store.name().toLowerCase(Locale.ROOT)));
        env.put("IDEMPOTENCY_MODE", settings.mode().name().toLowerCase(Locale.ROOT));
        env.put("IDEMPOTENCY", settings.idempotencyEnabled() ? "on" : "off");
        return env;
    }

    private static void read(Process process, List<String> output, CompletableFuture<String> started) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
                if (!started.isDone() && STARTUP_LINE.matcher(line).find()) {
                    started.complete(line);
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            started.completeExceptionally(new IllegalStateException("the service exited before it listened"));
        }
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String startupLine() {
        return startupLine;
    }

    /** Stops the service (SIGTERM: Quarkus shuts down, closing the database); SIGKILL if it lingers. */
    @Override
    public void close() throws InterruptedException, IOException {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (archiving) {
            if (Files.isRegularFile(ARCHIVING)) {
                Files.move(ARCHIVING, ARCHIVE, StandardCopyOption.ATOMIC_MOVE);
            }
            ARCHIVER_RUNNING.set(false);
        }
    }
}
