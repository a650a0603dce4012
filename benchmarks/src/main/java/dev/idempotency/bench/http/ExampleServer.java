package dev.idempotency.bench.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One example service in a JVM of its own, started the way {@code examples/run} starts it —
 * {@code java -cp <module classes>:<runtime classpath> <exec.mainClass>} with the settings in the
 * environment — plus this module's classes, for {@link dev.idempotency.bench.jdbc.CountingDriver};
 * a module whose build augments a Quarkus application with
 * {@code java -jar target/quarkus-app/quarkus-run.jar} (Quarkus cannot run from a plain class path,
 * and its class loader does not let the counting driver reach its JDBC driver: such a service gets
 * a plain URL). Its output goes to a log file; it is ready when it prints its start-up line.
 */
public final class ExampleServer implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on http://localhost:(\\d+)");
    private static final Pattern MAIN_CLASS =
            Pattern.compile("<exec\\.mainClass>\\s*([^<\\s]+)\\s*</exec\\.mainClass>");

    private final Process process;
    private final int port;
    private final Path log;

    private ExampleServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Why a service did not start. */
    public static final class StartFailure extends RuntimeException {
        private final String output;

        StartFailure(String message, String output) {
            super(message);
            this.output = output;
        }

        /** What the service printed before it gave up. */
        public String output() {
            return output;
        }
    }

    /**
     * Starts {@code examples/example-<framework>} of the checkout at {@code root}, built with its
     * {@code target/runtime.classpath} (see {@code benchmarks/run}).
     *
     * @param env      the service's settings (PORT, DATABASE_URL, IDEMPOTENCY_MODE, IDEMPOTENCY)
     * @param jvmArgs  options for the service's JVM
     * @throws StartFailure when it exits or stays silent past {@code timeout}
     */
    public static ExampleServer start(Path root, String framework, Map<String, String> env, List<String> jvmArgs,
                                      Path log, Duration timeout) {
        Path module = root.resolve("examples/example-" + framework);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        Path quarkusRunner = quarkusRunner(module);
        if (Files.isRegularFile(quarkusRunner)) {
            command.add("-jar");
            command.add(quarkusRunner.toString());
        } else {
            command.add("-cp");
            command.add(module.resolve("target/classes") + ":" + read(module.resolve("target/runtime.classpath")).trim()
                    + ":" + root.resolve("benchmarks/target/classes"));
            command.add(mainClass(module.resolve("pom.xml")));
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process;
        try {
            Files.createDirectories(log.getParent());
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + framework, e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(read(log));
            if (m.find()) {
                return new ExampleServer(process, Integer.parseInt(m.group(1)), log);
            }
            if (!process.isAlive()) {
                throw new StartFailure(framework + " exited with " + process.exitValue() + " before listening", read(log));
            }
            sleep(100);
        }
        process.destroyForcibly();
        throw new StartFailure(framework + " did not start within " + timeout.toSeconds() + " s", read(log));
    }

    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    /** SIGTERM (the services close their pools in shutdown hooks), then SIGKILL after 15 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The application a Quarkus module's build augments; {@code examples/run} starts it when it exists. */
    private static Path quarkusRunner(Path module) {
        return module.resolve("target/quarkus-app/quarkus-run.jar");
    }

    /** The {@code exec.mainClass} property of a module's pom, as {@code examples/run} reads it. */
    static String mainClass(Path pom) {
        Matcher m = MAIN_CLASS.matcher(read(pom));
        if (!m.find()) {
            throw new IllegalStateException(pom + " names no <exec.mainClass>");
        }
        return m.group(1);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
