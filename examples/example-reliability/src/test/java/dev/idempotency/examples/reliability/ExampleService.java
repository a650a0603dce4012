package dev.idempotency.examples.reliability;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which example service a test starts, and which idempotency store it must report on its start-up
 * line with a PostgreSQL {@code DATABASE_URL}: the Javalin example on {@code JdbcStore}, or the
 * Vert.x example on {@code PgStore} (the reactive Vert.x SQL client; in the atomic mode its keyed
 * {@code POST}s write the order through the reservation's reactive connection), or the Spring Boot
 * example on {@code JdbcStore}, or the Spring WebFlux example on {@code R2dbcStore}, or the Quarkus
 * example on {@code JdbcStore}.
 */
enum ExampleService {

    /** Runs on this test JVM's classpath, as the reliability tests always did. */
    JAVALIN_JDBC("javalin", "JdbcStore", "dev.idempotency.examples.javalin.JavalinExample"),

    /**
     * Runs on example-vertx's own runtime classpath ({@code target/classes} plus the
     * {@code target/process.classpath} its build writes), so with the Netty and Jackson versions
     * its Vert.x BOM chooses.
     */
    VERTX_PG("vertx", "PgStore", "dev.idempotency.examples.vertx.VertxExample", "vertx"),

    /**
     * The Spring Boot example (Spring MVC on Tomcat, idempotency-spring) on {@code JdbcStore}; in
     * the atomic mode its keyed {@code POST}s write the order with {@code JdbcTemplate} in a
     * {@code @Transactional} service, which joins the reservation's transaction. Runs on example-spring's own runtime classpath like {@link #VERTX_PG}, with the
     * versions Spring Boot's BOM chooses.
     */
    SPRING_JDBC("spring", "JdbcStore", "dev.idempotency.examples.spring.SpringExample", "spring"),

    /**
     * The Spring WebFlux example, its orders and its records ({@code R2dbcStore}) over one R2DBC
     * pool; in the atomic mode its keyed {@code POST}s write the order with {@code DatabaseClient}
     * in a {@code TransactionalOperator} that joins the reservation's transaction (Spring's current
     * reactive one). Runs on example-webflux's own runtime classpath.
     */
    WEBFLUX_R2DBC("webflux", "R2dbcStore", "dev.idempotency.examples.webflux.WebFluxExample", "webflux"),

    /**
     * The Quarkus example (Quarkus REST, idempotency-quarkus) on {@code JdbcStore}, started from
     * the application its build augments ({@code java -jar target/quarkus-app/quarkus-run.jar}):
     * Quarkus cannot run from a plain classpath. Its orders and records are in Quarkus's Agroal
     * data source; in the atomic mode its keyed {@code POST}s write the order in a
     * {@code @Transactional} bean that joins the reservation's JTA transaction (Narayana).
     */
    QUARKUS_JDBC("quarkus", "JdbcStore", "dev.idempotency.examples.quarkus.QuarkusExample");

    private final String framework;
    private final String store;
    private final String mainClass;
    /** The module whose own classpath the process runs on ({@code idempotency.reliability.<it>.*}), or null. */
    private final String ownClasspath;

    ExampleService(String framework, String store, String mainClass) {
        this(framework, store, mainClass, null);
    }

    ExampleService(String framework, String store, String mainClass, String ownClasspath) {
        this.framework = framework;
        this.store = store;
        this.mainClass = mainClass;
        this.ownClasspath = ownClasspath;
    }

    /** What the start-up line must contain: {@code (framework) listening on} and the store's name. */
    String expectedFramework() {
        return "(" + framework + ") listening on";
    }

    String expectedStore() {
        return "idempotency store: " + store + " ";
    }

    /**
     * What follows the JVM options on the child's command line: {@code -cp <classpath> <main class>},
     * or for Quarkus {@code -jar <quarkus-run.jar>}.
     */
    List<String> launchArguments() {
        if (this != QUARKUS_JDBC) {
            return List.of("-cp", classPath(), mainClass);
        }
        String property = "idempotency.reliability.quarkus.runner";
        String runner = System.getProperty(property);
        if (runner == null) {
            throw new IllegalStateException("The Quarkus example's application is set by this module's pom (" + property
                    + "): run the tests with Maven");
        }
        if (!Files.isRegularFile(Path.of(runner))) {
            throw new IllegalStateException("No " + runner + ": build examples/example-quarkus in the same reactor "
                    + "(mvn -pl examples/example-reliability -am verify)");
        }
        return List.of("-jar", runner);
    }

    /**
     * The classpath of the child JVM. Its directories come after the jars where that changes no
     * lookup, as a class-data archive ({@link ClassDataArchive}) needs: this module's own output
     * (its tests, which the services do not use) goes last, and an example's own classes come
     * from the jar its build packaged when that holds the compiled classes as they are now.
     */
    private String classPath() {
        if (ownClasspath == null) {
            // Surefire may start tests from a manifest-only jar, so its property is preferred.
            String surefire = System.getProperty("surefire.test.class.path");
            String testClassPath = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
            String own = Path.of("target").toAbsolutePath() + File.separator;
            List<String> entries = List.of(testClassPath.split(File.pathSeparator));
            return Stream.concat(entries.stream().filter(e -> !e.startsWith(own)), entries.stream().filter(e -> e.startsWith(own)))
                    .collect(Collectors.joining(File.pathSeparator));
        }
        String classesProperty = "idempotency.reliability." + ownClasspath + ".classes";
        String jarProperty = "idempotency.reliability." + ownClasspath + ".jar";
        String fileProperty = "idempotency.reliability." + ownClasspath + ".classpath";
        String classes = System.getProperty(classesProperty);
        String jar = System.getProperty(jarProperty);
        String file = System.getProperty(fileProperty);
        if (classes == null || jar == null || file == null) {
            throw new IllegalStateException("The " + framework + " example's classpath is set by this module's pom "
                    + "(" + classesProperty + " / " + jarProperty + " / " + fileProperty + "): run the tests with Maven");
        }
        try {
            String own = isPackagedAsCompiled(Path.of(jar), Path.of(classes)) ? jar : classes;
            return own + File.pathSeparator + Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("No " + file + ": build examples/example-" + framework + " in the same reactor "
                    + "(mvn -pl examples/example-reliability -am verify)", e);
        }
    }

    /** Whether {@code jar} exists and is not older than any file under {@code classes}. */
    private static boolean isPackagedAsCompiled(Path jar, Path classes) throws IOException {
        if (!Files.isRegularFile(jar)) {
            return false;
        }
        long packaged = Files.getLastModifiedTime(jar).toMillis();
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(Files::isRegularFile).allMatch(f -> lastModified(f) <= packaged);
        }
    }

    private static long lastModified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A short label for names and summaries, e.g. {@code vertx/PgStore}. */
    String label() {
        return framework + "/" + store;
    }

    @Override
    public String toString() {
        return label();
    }
}
