package dev.idempotency.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Gradle (Kotlin DSL) coordinates of each quick start name exactly the dependencies of its Maven
 * blocks, which {@link ReadmeQuickStartTest} builds and runs: the same coordinates and versions, the
 * BOMs as {@code platform(..)}, Maven's scopes as Gradle's configurations ({@code runtime} →
 * {@code runtimeOnly}, an annotation processor path → {@code annotationProcessor}). No Gradle runs
 * here (the machine has none), so this is the check that the two cannot drift apart.
 */
class ReadmeGradleTest {

    private static final List<String> APPS = List.of("jakarta-rs", "javalin", "micronaut", "micronaut-liquibase", "micronaut-tenants",
            "quarkus", "readme", "spring", "spring-liquibase", "spring-webflux", "vertx", "vertx-pg");
    private static final Pattern MAVEN_ENTRY = Pattern.compile("<(dependency|path)>(.*?)</\\1>", Pattern.DOTALL);
    private static final Pattern GRADLE_ENTRY = Pattern.compile(
            "^\\s*([A-Za-z]+)\\((platform\\()?\"([^\"]+)\"\\)?\\)\\s*(//.*)?$");

    private final Snippets snippets = Snippets.collect(
            Path.of(System.getProperty("idempotency.root", "..")).toAbsolutePath().normalize());

    static Stream<String> apps() {
        return APPS.stream();
    }

    @ParameterizedTest
    @MethodSource("apps")
    void theGradleCoordinatesAreTheMavenOnes(String app) {
        TreeSet<String> maven = new TreeSet<>();
        snippets.of(app, "pom").forEach(s -> maven.addAll(maven(s.content())));
        TreeSet<String> gradle = new TreeSet<>();
        snippets.of(app, "gradle").forEach(s -> gradle.addAll(gradle(s.content(), s.source())));

        assertThat(gradle).as(app + ": Gradle blocks").isNotEmpty();
        assertThat(gradle).as(app + ": the Gradle coordinates against the Maven ones").isEqualTo(maven);
    }

    @Test
    void theTranslationReadsScopesBomsAndProcessorPaths() {
        String pom = """
                <dependency><groupId>g</groupId><artifactId>bom</artifactId><version>1</version>
                  <type>pom</type><scope>import</scope></dependency>
                <dependency><groupId>g</groupId><artifactId>a</artifactId></dependency>
                <dependency><groupId>g</groupId><artifactId>r</artifactId><version>2</version><scope>runtime</scope></dependency>
                <path><groupId>g</groupId><artifactId>p</artifactId></path>
                """;
        assertThat(maven(pom)).containsExactlyInAnyOrder("platform g:bom:1", "implementation g:a",
                "runtimeOnly g:r:2", "annotationProcessor g:p");
        assertThat(gradle("""
                dependencies {
                    implementation(platform("g:bom:1"))
                    annotationProcessor(platform("g:bom:1"))
                    implementation("g:a")   // a comment
                    runtimeOnly("g:r:2")
                    annotationProcessor("g:p")
                }
                """, "test")).containsOnly("platform g:bom:1", "implementation g:a",
                "runtimeOnly g:r:2", "annotationProcessor g:p");
    }

    /** Each dependency or processor path as "configuration group:artifact[:version]". */
    static List<String> maven(String pom) {
        Matcher m = MAVEN_ENTRY.matcher(pom.replaceAll("(?s)<!--.*?-->", ""));
        List<String> entries = new java.util.ArrayList<>();
        while (m.find()) {
            String body = m.group(2);
            String coordinates = element(body, "groupId").orElseThrow() + ":" + element(body, "artifactId").orElseThrow()
                    + element(body, "version").map(v -> ":" + v).orElse("");
            if (m.group(1).equals("path")) {
                entries.add("annotationProcessor " + coordinates);
            } else if (element(body, "scope").orElse("").equals("import")) {
                entries.add("platform " + coordinates);
            } else {
                entries.add(switch (element(body, "scope").orElse("compile")) {
                    case "compile" -> "implementation";
                    case "runtime" -> "runtimeOnly";
                    case "provided" -> "compileOnly";
                    case "test" -> "testImplementation";
                    default -> throw new IllegalArgumentException("scope of " + coordinates);
                } + " " + coordinates);
            }
        }
        return entries;
    }

    /** Each {@code configuration("…")} line; a {@code platform(..)} under any configuration is one BOM. */
    static List<String> gradle(String block, String source) {
        List<String> entries = new java.util.ArrayList<>();
        boolean inDependencies = false;
        for (String line : block.lines().toList()) {
            if (line.strip().startsWith("dependencies {")) {
                inDependencies = true;
                continue;
            }
            if (!inDependencies || line.strip().equals("}") || line.isBlank() || line.strip().startsWith("//")) {
                continue;
            }
            Matcher m = GRADLE_ENTRY.matcher(line);
            assertThat(m.matches()).as(source + ": not a dependency line: " + line).isTrue();
            entries.add(m.group(2) != null ? "platform " + m.group(3) : m.group(1) + " " + m.group(3));
        }
        return entries;
    }

    private static Optional<String> element(String body, String name) {
        Matcher m = Pattern.compile("<" + name + ">\\s*([^<]+?)\\s*</" + name + ">").matcher(body);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
