package dev.idempotency.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The READMEs' quick starts, as a new user would follow them: install the artifacts with the
 * README's own command into a fresh local repository, make a project of each application's marked
 * blocks ({@link Snippets}: the BOM import, the dependencies, the Java files, the configuration),
 * build it with Maven (all of them in one reactor), start it (a Quarkus one with the launcher its
 * build made), and send the same {@code POST /orders} twice: the second answer is the first's
 * replay, and a new key runs the handler again; a request without a key (keys are optional by
 * default) is answered by the handler too, never replayed. The Vert.x PostgreSQL one
 * also starts on a schema that does not exist and must exit; the WebFlux one, on R2DBC and Flyway,
 * reports its health and must exit without its table. The Spring Boot and Micronaut builds
 * are started once more as their READMEs' PostgreSQL sections say, on an empty schema: migrated,
 * healthy, replaying, and purging an expired record by themselves. Rename a class in a README and
 * the build of its application fails here.
 *
 * <p>The fresh repository holds only what the install put there under {@code dev/idempotency};
 * every other group is a link into the local repository of the build that runs this test
 * ({@code -Dmaven.repo.local}, else {@code ~/.m2/repository}; the pom passes it as
 * {@code idempotency.thirdPartyRepository}), so third-party artifacts are not downloaded again (and
 * a download lands there, as it would for the user).
 *
 * <p>The tests run concurrently (the pom's JUnit settings), their applications at most two at a
 * time ({@link QuickStartProcess}): each has its own port, its own schema when it uses PostgreSQL,
 * and its own log; the builds happen once, before any starts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Execution(ExecutionMode.CONCURRENT)
class ReadmeQuickStartTest {

    /** The applications the READMEs must describe completely. */
    private static final List<String> APPS = List.of("jakarta-rs", "javalin", "micronaut", "quarkus", "readme", "spring",
            "spring-webflux", "vertx", "vertx-pg");
    /** Quick starts on PostgreSQL alone, each on an empty schema of its own. */
    private static final List<String> ON_POSTGRES_ONLY = List.of("spring-webflux", "vertx-pg");
    /** Applications started on PostgreSQL only: the quick start with Liquibase instead of Flyway. */
    private static final List<String> LIQUIBASE_APPS = List.of("micronaut-liquibase", "spring-liquibase");
    /** The Micronaut quick start with micronaut-security and the README's tenant resolver. */
    private static final String MICRONAUT_TENANTS = "micronaut-tenants";
    /** What quarkus-maven-plugin's {@code build} goal makes: a Quarkus application has no main class of its own. */
    private static final String QUARKUS_LAUNCHER = "target/quarkus-app/quarkus-run.jar";
    private static final Pattern ARTIFACT_ID = Pattern.compile("<artifactId>([^<]+)</artifactId>");
    private static final Duration BUILD_LIMIT = Duration.ofMinutes(6);
    private static final Duration ALL_BUILDS_LIMIT = Duration.ofMinutes(12);
    private static final Duration PURGE_LIMIT = Duration.ofSeconds(20);
    /**
     * What readme-tests adds to these builds to run the README's tenant recipe: the class
     * ({@code tenant-check/<app>/<simple name>.java}), and the main class to start.
     */
    private static final Map<String, TenantCheck> TENANT_CHECK = Map.of(
            "javalin", new TenantCheck("quickstart.TenantCheckServer", "quickstart.TenantCheckServer"),
            "micronaut-tenants", new TenantCheck("quickstart.TenantCheck", "quickstart.Application"),
            "spring", new TenantCheck("tenants.TenantCheckServer", "tenants.TenantCheckServer"),
            "vertx", new TenantCheck("quickstart.TenantCheckServer", "quickstart.TenantCheckServer"));

    private record TenantCheck(String added, String main) {
    }

    private final Path root = Path.of(System.getProperty("idempotency.root", "..")).toAbsolutePath().normalize();
    private final Path work = Path.of("target", "readme-apps").toAbsolutePath();
    private final Map<String, Build> builds = new HashMap<>();
    private String buildFailure;
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
        String modules = String.join(",", modulesOf(snippets.artifactsUsed()));
        for (String command : install) {
            // useIncrementalCompilation=false: classes this build already compiled are installed as they
            // are (stale sources are still compiled), rather than every module compiled again because
            // the jars it depends on were written anew. (A module whose dependency changed its API
            // since that build is then not recompiled: run the build over the changed modules first.)
            // -pl … -am: only the modules the quick starts name and what they need; the examples,
            // benchmarks and tests of the reactor are not what a user's build resolves.
            run(root, work.resolve("install.log"), command + " -B -ntp -q -pl " + modules + " -am -Dmaven.repo.local="
                    + repository + " -Dmaven.compiler.useIncrementalCompilation=false", BUILD_LIMIT);
        }
        assertThat(repository.resolve("dev/idempotency/idempotency-bom")).as("the BOM was installed").isDirectory();
    }

    @Test
    void everyQuickStartIsMarkedForThisTest() {
        List<String> all = Stream.of(APPS, LIQUIBASE_APPS, List.of(MICRONAUT_TENANTS)).flatMap(List::stream).toList();
        assertThat(snippets.apps()).containsExactlyInAnyOrderElementsOf(all);
        for (String app : all) {
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
        Build build = build(app);
        QuickStartDatabase database = ON_POSTGRES_ONLY.contains(app) ? QuickStartDatabase.create() : null;
        Map<String, String> environment = database == null ? Map.of()
                : app.equals("vertx-pg") ? Map.of("DATABASE_URL", database.vertxUri()) : onPostgres(app, database);
        try (QuickStartProcess running = build.start(environment, List.of(), "app.log")) {
            HttpResponse<String> first = running.postOrder("quick-start-1");
            HttpResponse<String> retry = running.postOrder("quick-start-1");
            HttpResponse<String> other = running.postOrder("quick-start-2");
            HttpResponse<String> keyless = running.postOrder(null);

            assertThat(first.statusCode()).as(app + ": the first answer; " + running.tail()).isEqualTo(201);
            assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(retry.statusCode()).as(app + ": the retry").isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).as(app + ": the retry is a replay")
                    .hasValue("true");
            assertThat(retry.body()).as(app + ": the replay's body").isEqualTo(first.body());
            assertThat(other.statusCode()).isEqualTo(201);
            assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(other.body()).as(app + ": a new key runs the handler again (a new order)")
                    .isNotEqualTo(first.body());
            assertThat(keyless.statusCode()).as(app + ": a request without a key runs the handler; "
                    + running.tail()).isEqualTo(201);
            assertThat(keyless.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(keyless.body()).as(app + ": the handler's answer to a request without a key")
                    .contains("\"item\":\"book\"").isNotEqualTo(first.body()).isNotEqualTo(other.body());
            if (database != null) {
                assertThat(database.count("SELECT count(*) FROM orders")).as(app + ": orders written, one unguarded")
                        .isEqualTo(3);
                assertThat(database.count("SELECT count(*) FROM idempotency_keys WHERE state = 'COMPLETED'"))
                        .as(app + ": records stored").isEqualTo(2);
                if (app.equals("spring-webflux")) {
                    assertThat(running.get("/actuator/health").body()).as(app + ": the idempotency component")
                            .containsPattern("\"idempotency\":\\{[^{}]*\"status\":\"UP\"");
                    try (QuickStartDatabase empty = QuickStartDatabase.create()) {
                        doesNotStartWithoutItsTable(build, onPostgres(app, empty),
                                List.of("--idempotency.r2dbc.initialize-schema=never"), "APPLICATION FAILED TO START");
                    }
                } else {
                    doesNotStartWithoutItsTable(build, Map.of("DATABASE_URL", database.vertxUriOfAMissingSchema()),
                            List.of(), "Not started: ");
                }
            }
        } finally {
            if (database != null) {
                database.close();
            }
        }
    }

    /** The applications whose READMEs add PostgreSQL with Flyway, health and purge to the same build. */
    static Stream<String> operatedApps() {
        return Stream.of("spring", "micronaut");
    }

    static Stream<String> postgresApps() {
        return Stream.concat(operatedApps(), LIQUIBASE_APPS.stream());
    }

    /**
     * The quick start's build, started as its README's PostgreSQL section says (its profile or
     * environment {@code postgres}) on an empty schema, with the idempotency settings of the README
     * and nothing else: its Flyway (or Liquibase) runs its own first migration, the table comes by
     * the README's recipe, the schema check passes, a retry replays, and the health endpoint shows
     * {@code idempotency} UP.
     */
    @ParameterizedTest
    @MethodSource("postgresApps")
    void onAnEmptyPostgresDatabaseItMigratesReplaysAndReportsHealth(String app) throws Exception {
        Build build = build(app);
        try (QuickStartDatabase database = QuickStartDatabase.create();
                QuickStartProcess running = build.start(onPostgres(app, database), List.of(), "app-postgres.log")) {
            HttpResponse<String> first = running.postOrder("postgres-1");
            HttpResponse<String> retry = running.postOrder("postgres-1");

            assertThat(first.statusCode()).as(app + ": the first answer; " + running.tail()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).as(app + ": the retry is a replay")
                    .hasValue("true");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(database.count("SELECT count(*) FROM orders")).as(app + ": its own migration ran").isZero();
            assertThat(database.count(app.endsWith("-liquibase")
                    ? "SELECT count(*) FROM databasechangelog WHERE id = 'orders-1'"
                    : "SELECT count(*) FROM flyway_schema_history WHERE version = '1'"))
                    .as(app + ": by its migration tool").isEqualTo(1);
            assertThat(database.count("SELECT count(*) FROM idempotency_keys WHERE state = 'COMPLETED'"))
                    .as(app + ": the record").isEqualTo(1);

            HttpResponse<String> health = running.get(app.startsWith("spring") ? "/actuator/health" : "/health");
            assertThat(health.statusCode()).as(app + ": health " + health.body()).isEqualTo(200);
            assertThat(health.body()).as(app + ": the idempotency component")
                    .containsPattern("\"idempotency\":\\{[^{}]*\"status\":\"UP\"");
        }
    }

    /**
     * The Jakarta REST quick start on an empty PostgreSQL schema, as its README says
     * ({@code JDBC_DATABASE_URL}): it makes its table, a retry replays, the record is in the
     * database, and {@code IdempotencyHealthResource} reports {@code idempotency} UP.
     */
    @Test
    void theJakartaRsQuickStartRunsOnPostgresWithHealth() throws Exception {
        Build build = build("jakarta-rs");
        try (QuickStartDatabase database = QuickStartDatabase.create();
                QuickStartProcess running = build.start(onPostgres("jakarta-rs", database), List.of(),
                        "app-postgres.log")) {
            HttpResponse<String> first = running.postOrder("postgres-1");
            HttpResponse<String> retry = running.postOrder("postgres-1");
            HttpResponse<String> health = running.get("/health");

            assertThat(first.statusCode()).as("the first answer; " + running.tail()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("the retry is a replay").hasValue("true");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(database.count("SELECT count(*) FROM idempotency_keys WHERE state = 'COMPLETED'"))
                    .as("the record, in PostgreSQL").isEqualTo(1);
            assertThat(health.statusCode()).as("health " + health.body()).isEqualTo(200);
            assertThat(health.body()).containsPattern("\"idempotency\":\\{[^{}]*\"status\":\"UP\"");
        }
    }

    /**
     * The same start with a short ttl and purge schedule: a keyed record exists, then the
     * application's own purge deletes it once it has expired, with nothing else asked of it.
     */
    /** The applications that purge by themselves: those of {@link #operatedApps()}, and WebFlux's on R2DBC. */
    static Stream<String> purgingApps() {
        return Stream.concat(operatedApps(), Stream.of("spring-webflux"));
    }

    @ParameterizedTest
    @MethodSource("purgingApps")
    void onPostgresItPurgesAnExpiredRecordByItself(String app) throws Exception {
        Build build = build(app);
        List<String> shortTimes = List.of("--idempotency.ttl=2s", "--idempotency.lease=1s",
                "--idempotency.purge.interval=1s", "--idempotency.purge.initial-delay=0s");
        try (QuickStartDatabase database = QuickStartDatabase.create();
                QuickStartProcess running = build.start(onPostgres(app, database), shortTimes, "app-purge.log")) {
            assertThat(running.postOrder("purged-1").statusCode()).as(app + "; " + running.tail()).isEqualTo(201);
            assertThat(database.count("SELECT count(*) FROM idempotency_keys WHERE expires_at <= created_at + "
                    + "INTERVAL '5 seconds'")).as(app + ": the record, with the short ttl").isEqualTo(1);

            long deadline = System.nanoTime() + PURGE_LIMIT.toNanos();
            long left = 1;
            while (left > 0 && System.nanoTime() < deadline) {
                Thread.sleep(250); // the purge runs on the application's schedule
                left = database.count("SELECT count(*) FROM idempotency_keys");
            }
            assertThat(left).as(app + ": the expired record purged within " + PURGE_LIMIT + "; " + running.tail())
                    .isZero();
        }
    }

    /** The quick starts whose README's tenant resolver is run here, not only compiled. */
    static Stream<String> tenantCheckedApps() {
        return TENANT_CHECK.keySet().stream().sorted();
    }

    /**
     * The README's tenant recipe ({@code TenantFromAuthentication}, Spring's {@code TenantFromToken}),
     * compiled with the quick start, behind what this test adds to the build
     * ({@code tenant-check/<app>/}: a server with the framework's own authentication hook, a
     * stand-in for Spring Security, or Micronaut Security's beans), which takes the tenant from a
     * test header: two tenants that
     * send one key each run the handler, a tenant's retry replays its own response, and a request
     * without credentials is refused before the engine sees it.
     */
    @ParameterizedTest
    @MethodSource("tenantCheckedApps")
    void theTenantRecipeKeepsTenantsApart(String app) throws Exception {
        Build build = build(app);
        try (QuickStartProcess running = QuickStartProcess.start(build.dir(),
                List.of("-cp", build.classpath(), TENANT_CHECK.get(app).main()), Map.of(), List.of(),
                build.dir().resolve("app-tenants.log"))) {
            HttpResponse<String> a = running.postOrder("tenant-key", Map.of("X-Test-Tenant", "a"));
            HttpResponse<String> b = running.postOrder("tenant-key", Map.of("X-Test-Tenant", "b"));
            HttpResponse<String> aAgain = running.postOrder("tenant-key", Map.of("X-Test-Tenant", "a"));
            HttpResponse<String> nobody = running.postOrder("tenant-key");

            assertThat(a.statusCode()).as(app + ": tenant a; " + running.tail()).isEqualTo(201);
            assertThat(b.statusCode()).as(app + ": tenant b").isEqualTo(201);
            assertThat(b.headers().firstValue("Idempotent-Replayed")).as(app + ": b runs the handler").isEmpty();
            assertThat(b.body()).as(app + ": b's own order").isNotEqualTo(a.body());
            assertThat(aAgain.headers().firstValue("Idempotent-Replayed")).as(app + ": a's retry").hasValue("true");
            assertThat(aAgain.body()).as(app + ": a's retry replays a's response").isEqualTo(a.body());
            assertThat(nobody.statusCode()).as(app + ": without credentials").isEqualTo(401);
        }
    }

    private static Map<String, String> onPostgres(String app, QuickStartDatabase database) {
        if (app.equals("spring-webflux")) { // its quick start: R2DBC, and Flyway's own JDBC URL
            return Map.of("R2DBC_URL", database.r2dbcUrl(), "JDBC_DATABASE_URL", database.jdbcUrl(),
                    "DATABASE_USERNAME", database.user(), "DATABASE_PASSWORD", database.password());
        }
        return Map.of(app.startsWith("spring") ? "SPRING_PROFILES_ACTIVE" : "MICRONAUT_ENVIRONMENTS", "postgres",
                "JDBC_DATABASE_URL", database.jdbcUrl(),
                "JDBC_DATABASE_USERNAME", database.user(),
                "JDBC_DATABASE_PASSWORD", database.password());
    }

    /**
     * A quick start's project, built once: its directory, main class (null for a Quarkus application)
     * and runtime class path.
     */
    private record Build(Path dir, String main, String classpath) {

        /** What {@code java} runs: the main class on the class path, else the launcher Quarkus built. */
        List<String> launch() {
            return main != null ? List.of("-cp", classpath, main) : List.of("-jar", QUARKUS_LAUNCHER);
        }

        QuickStartProcess start(Map<String, String> environment, List<String> args, String log) throws Exception {
            return QuickStartProcess.start(dir, launch(), environment, args, dir.resolve(log));
        }
    }

    /**
     * {@code app}'s build. The first call writes every quick start's project and builds them all in
     * one Maven reactor (one JVM, one resolution; {@code --fail-at-end}, so one application's broken
     * build does not hide the others'); an application whose build failed fails here with the log.
     */
    private synchronized Build build(String app) throws Exception {
        if (builds.isEmpty() && buildFailure == null) {
            buildAll();
        }
        Build built = builds.get(app);
        if (built == null) {
            throw new AssertionError("The build of " + app + " failed: " + buildFailure);
        }
        return built;
    }

    private void buildAll() throws Exception {
        List<String> all = Stream.of(APPS, LIQUIBASE_APPS, List.of(MICRONAUT_TENANTS)).flatMap(List::stream).toList();
        Map<String, String> mains = new HashMap<>();
        StringBuilder modules = new StringBuilder();
        for (String app : all) {
            Path dir = work.resolve(app);
            mains.put(app, QuickStartProject.write(dir, app, snippets));
            TenantCheck check = TENANT_CHECK.get(app);
            if (check != null) {
                String added = check.added();
                try (InputStream source = getClass().getResourceAsStream("/tenant-check/" + app + "/"
                        + added.substring(added.lastIndexOf('.') + 1) + ".java")) {
                    Files.copy(source, dir.resolve("src/main/java/" + added.replace('.', '/') + ".java"));
                }
            }
            modules.append("<module>").append(app).append("</module>");
        }
        // Only lists the projects: not their parent, so each builds with its own pom alone.
        Files.writeString(work.resolve("pom.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>quickstart</groupId>
                  <artifactId>all</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <modules>%s</modules>
                </project>
                """.formatted(modules));
        try {
            run(work, work.resolve("build.log"), "mvn -B -ntp -q --fail-at-end -Dmaven.repo.local=" + repository
                    + " package org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath"
                    + " -Dmdep.includeScope=runtime -Dmdep.outputFile=target/runtime.classpath", ALL_BUILDS_LIMIT);
        } catch (AssertionError failed) {
            buildFailure = failed.getMessage(); // which application failed: the one without a class path
        }
        for (String app : all) {
            Path dir = work.resolve(app);
            Path classpath = dir.resolve("target/runtime.classpath");
            if (mains.get(app) == null && !Files.isRegularFile(dir.resolve(QUARKUS_LAUNCHER))) {
                buildFailure = (buildFailure == null ? "" : buildFailure + "; ") + app
                        + ": no file block has a main method, and its build made no " + QUARKUS_LAUNCHER;
            } else if (Files.isRegularFile(classpath)) {
                builds.put(app, new Build(dir, mains.get(app), "target/classes" + java.io.File.pathSeparator
                        + Files.readString(classpath).strip()));
            }
        }
    }

    /**
     * The same application without its table — on a schema that does not exist (Vert.x), or with
     * the table's creation turned off after its Flyway (WebFlux) — with {@code environment} and
     * {@code args}: its start fails and it exits, without ever listening, rather than answering 503
     * to every request, and says {@code failure} and which table.
     */
    private static void doesNotStartWithoutItsTable(Build build, Map<String, String> environment, List<String> args,
                                                    String failure) throws Exception {
        Path failedLog = build.dir().resolve("app-without-table.log");
        List<String> command = new ArrayList<>(List.of(QuickStartProcess.javaExecutable()));
        command.addAll(QuickStartProcess.JVM_OPTIONS);
        command.addAll(build.launch());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(build.dir().toFile()).redirectErrorStream(true)
                .redirectOutput(failedLog.toFile());
        builder.environment().putAll(environment);
        builder.environment().put("PORT", String.valueOf(QuickStartProcess.freePort()));
        Process failed = builder.start();
        try {
            assertThat(failed.waitFor(QuickStartProcess.START_LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .as("without its table the application exits; " + QuickStartProcess.tail(failedLog)).isTrue();
            assertThat(failed.exitValue()).as("its exit code").isEqualTo(1);
            assertThat(Files.readString(failedLog)).as("what it says").contains(failure)
                    .contains("idempotency_keys");
        } finally {
            failed.destroyForcibly();
        }
    }

    /** The directories under {@link #root} of the modules with these artifactIds; fails for one that has none. */
    private List<String> modulesOf(Set<String> artifactIds) throws IOException {
        Map<String, String> modules = new HashMap<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path pom : dirs.map(d -> d.resolve("pom.xml")).filter(Files::isRegularFile).toList()) {
                Matcher own = ARTIFACT_ID.matcher(Files.readString(pom).replaceFirst("(?s)<parent>.*?</parent>", ""));
                if (own.find()) {
                    modules.put(own.group(1), pom.getParent().getFileName().toString());
                }
            }
        }
        List<String> found = new ArrayList<>();
        for (String artifactId : new TreeSet<>(artifactIds)) {
            assertThat(modules).as("a module of the project builds " + artifactId).containsKey(artifactId);
            found.add(modules.get(artifactId));
        }
        return found;
    }

    /** {@code command} in a shell in {@code dir}, its output to {@code log}; fails with the log's end. */
    private static void run(Path dir, Path log, String command, Duration limit) throws Exception {
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder("bash", "-c", command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("Timed out after " + limit + ": " + command + "; "
                    + QuickStartProcess.tail(log));
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("Failed (" + p.exitValue() + "): " + command + " in " + dir + "; "
                    + QuickStartProcess.tail(log));
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
