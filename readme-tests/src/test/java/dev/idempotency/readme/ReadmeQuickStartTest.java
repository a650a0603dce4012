package dev.idempotency.readme;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The READMEs' quick starts, as a new user would follow them: install the artifacts with the
 * README's own command into a fresh local repository, make a project of each application's marked
 * blocks ({@link Snippets}: the BOM import, the dependencies, the Java files, the configuration),
 * build it with Maven, start it, and send the same {@code POST /orders} twice: the second answer is
 * the first's replay, and a new key runs the handler again; a request without a key (keys are
 * optional by default) is answered by the handler too, never replayed. The PostgreSQL one also
 * starts on a schema that does not exist and must exit. Rename a class in a README and the build
 * of its application fails here.
 *
 * <p>The fresh repository holds only what the install put there under {@code dev/idempotency};
 * every other group is a link into the local repository of the build that runs this test
 * ({@code -Dmaven.repo.local}, else {@code ~/.m2/repository}; the pom passes it as
 * {@code idempotency.thirdPartyRepository}), so third-party artifacts are not downloaded again (and
 * a download lands there, as it would for the user).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadmeQuickStartTest {

    /** The applications the READMEs must describe completely. */
    private static final List<String> APPS = List.of("javalin", "micronaut", "readme", "spring", "vertx", "vertx-pg");
    private static final Duration BUILD_LIMIT = Duration.ofMinutes(6);
    private static final Duration START_LIMIT = Duration.ofSeconds(60);
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":1}";

    private final Path root = Path.of(System.getProperty("idempotency.root", "..")).toAbsolutePath().normalize();
    private final Path work = Path.of("target", "readme-apps").toAbsolutePath();
    private Snippets snippets;
    private Path repository;

    @BeforeAll
    void installTheArtifactsAsTheReadmeSays() throws Exception {
        snippets = Snippets.collect(root);
        deleteRecursively(work);
        repository = work.resolve("m2");
        linkThirdPartyArtifacts(repository);
        List<String> install = snippets.installCommands();
        assertThat(install).as("the README's install command").isNotEmpty();
        for (String command : install) {
            run(root, work.resolve("install.log"), command + " -B -ntp -q -Dmaven.repo.local=" + repository);
        }
        assertThat(repository.resolve("dev/idempotency/idempotency-bom")).as("the BOM was installed").isDirectory();
    }

    @Test
    void everyQuickStartIsMarkedForThisTest() {
        assertThat(snippets.apps()).containsExactlyInAnyOrderElementsOf(APPS);
        for (String app : APPS) {
            assertThat(snippets.of(app, "pom")).as(app + ": pom fragments").isNotEmpty();
            assertThat(snippets.of(app, "file")).as(app + ": files").isNotEmpty();
        }
    }

    Stream<String> apps() {
        return APPS.stream();
    }

    @ParameterizedTest
    @MethodSource("apps")
    void theQuickStartBuildsStartsAndReplaysARetry(String app) throws Exception {
        Path dir = work.resolve(app);
        String main = QuickStartProject.write(dir, app, snippets);
        run(dir, dir.resolve("build.log"), "mvn -B -ntp -q -Dmaven.repo.local=" + repository + " package"
                + " org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath"
                + " -Dmdep.includeScope=runtime -Dmdep.outputFile=target/runtime.classpath");
        String classpath = "target/classes" + java.io.File.pathSeparator
                + Files.readString(dir.resolve("target/runtime.classpath")).strip();

        int port = freePort();
        Path log = dir.resolve("app.log");
        ProcessBuilder builder = new ProcessBuilder(javaExecutable(), "-cp", classpath, main)
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(Map.of("PORT", String.valueOf(port),
                "MICRONAUT_SERVER_PORT", String.valueOf(port)));
        QuickStartDatabase database = app.equals("vertx-pg") ? QuickStartDatabase.create() : null;
        if (database != null) {
            builder.environment().put("DATABASE_URL", database.vertxUri());
        }
        Process process = builder.start();
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            URI orders = URI.create("http://127.0.0.1:" + port + "/orders");
            awaitListening(process, client, orders, log);

            HttpResponse<String> first = post(client, orders, "quick-start-1");
            HttpResponse<String> retry = post(client, orders, "quick-start-1");
            HttpResponse<String> other = post(client, orders, "quick-start-2");
            HttpResponse<String> keyless = post(client, orders, null);

            assertThat(first.statusCode()).as(app + ": the first answer; " + tail(log)).isEqualTo(201);
            assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(retry.statusCode()).as(app + ": the retry").isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).as(app + ": the retry is a replay")
                    .hasValue("true");
            assertThat(retry.body()).as(app + ": the replay's body").isEqualTo(first.body());
            assertThat(other.statusCode()).isEqualTo(201);
            assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(other.body()).as(app + ": a new key runs the handler again (a new order)")
                    .isNotEqualTo(first.body());
            assertThat(keyless.statusCode()).as(app + ": a request without a key runs the handler; " + tail(log))
                    .isEqualTo(201);
            assertThat(keyless.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(keyless.body()).as(app + ": the handler's answer to a request without a key")
                    .contains("\"item\":\"book\"").isNotEqualTo(first.body()).isNotEqualTo(other.body());
            if (database != null) {
                assertThat(database.count("SELECT count(*) FROM orders")).as(app + ": orders written, one unguarded")
                        .isEqualTo(3);
                assertThat(database.count("SELECT count(*) FROM idempotency_keys WHERE state = 'COMPLETED'"))
                        .as(app + ": records stored").isEqualTo(2);
                doesNotStartWithoutItsTable(builder, database, log);
            }
        } finally {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            }
            if (database != null) {
                database.close();
            }
        }
    }

    /**
     * The same application on a schema that does not exist: its start fails and it exits, without
     * ever listening, rather than answering 503 to every request.
     */
    private static void doesNotStartWithoutItsTable(ProcessBuilder builder, QuickStartDatabase database, Path log)
            throws Exception {
        Path failedLog = log.resolveSibling("app-without-table.log");
        builder.environment().put("DATABASE_URL", database.vertxUriOfAMissingSchema());
        builder.environment().put("PORT", String.valueOf(freePort()));
        Process failed = builder.redirectOutput(failedLog.toFile()).start();
        try {
            assertThat(failed.waitFor(START_LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .as("without its table the application exits; " + tail(failedLog)).isTrue();
            assertThat(failed.exitValue()).as("its exit code").isEqualTo(1);
            assertThat(Files.readString(failedLog)).as("what it says").contains("Not started: ")
                    .contains("idempotency_keys");
        } finally {
            failed.destroyForcibly();
        }
    }

    /** {@code POST} of {@link #ORDER} under {@code key}; without the header when {@code key} is null. */
    private static HttpResponse<String> post(HttpClient client, URI uri, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(ORDER));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitListening(Process process, HttpClient client, URI uri, Path log) throws Exception {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("The application exited with " + process.exitValue() + "; " + tail(log));
            }
            try {
                client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                return; // any answer: it listens
            } catch (IOException notYet) {
                Thread.sleep(200); // polling a port that is not open yet
            }
        }
        throw new AssertionError("The application did not listen within " + START_LIMIT + "; " + tail(log));
    }

    /** {@code command} in a shell in {@code dir}, its output to {@code log}; fails with the log's end. */
    private static void run(Path dir, Path log, String command) throws Exception {
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder("bash", "-c", command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(BUILD_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("Timed out after " + BUILD_LIMIT + ": " + command + "; " + tail(log));
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("Failed (" + p.exitValue() + "): " + command + " in " + dir + "; " + tail(log));
        }
    }

    /**
     * A local repository with nothing of this project in it: every group of the build's own local
     * repository linked, except {@code dev/idempotency}.
     */
    private static void linkThirdPartyArtifacts(Path repository) throws IOException {
        String configured = System.getProperty("idempotency.thirdPartyRepository", "");
        Path user = configured.isBlank() || configured.contains("${")
                ? Path.of(System.getProperty("user.home"), ".m2", "repository")
                : Path.of(configured).toAbsolutePath();
        Files.createDirectories(repository.resolve("dev"));
        if (!Files.isDirectory(user)) {
            return;
        }
        try (Stream<Path> groups = Files.list(user)) {
            for (Path group : groups.toList()) {
                if (!group.getFileName().toString().equals("dev")) {
                    Files.createSymbolicLink(repository.resolve(group.getFileName().toString()), group);
                }
            }
        }
        if (Files.isDirectory(user.resolve("dev"))) {
            try (Stream<Path> groups = Files.list(user.resolve("dev"))) {
                for (Path group : groups.toList()) {
                    if (!group.getFileName().toString().equals("idempotency")) {
                        Files.createSymbolicLink(repository.resolve("dev").resolve(group.getFileName().toString()),
                                group);
                    }
                }
            }
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            return "last lines of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40),
                    lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Deletes {@code dir}, not following links (the repository's links point into ~/.m2). */
    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) { // walk does not follow links by default
            walk.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Files.delete(all.get(i));
        }
    }
}
