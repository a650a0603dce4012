package dev.idempotency.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user's project made of one application's README blocks: its {@code pom.xml} is the
 * boilerplate every project has (coordinates, Java 17, plugin versions) around the README's pom
 * fragments, merged by section; every {@code file} block is written where its marker says.
 */
final class QuickStartProject {

    private static final Pattern DEPENDENCY_MANAGEMENT = section("dependencyManagement");
    private static final Pattern DEPENDENCIES = section("dependencies");
    private static final Pattern BUILD_PLUGINS = Pattern.compile(
            "<build>\\s*<plugins>(.*?)</plugins>\\s*</build>", Pattern.DOTALL);
    private static final Pattern MAIN = Pattern.compile("public\\s+static\\s+void\\s+main\\s*\\(");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);

    private QuickStartProject() {
    }

    private static Pattern section(String tag) {
        return Pattern.compile("<" + tag + ">(.*?)</" + tag + ">", Pattern.DOTALL);
    }

    /** Writes the project into {@code dir}; returns the main class (the file block with a {@code main}). */
    static String write(Path dir, String app, Snippets snippets) throws IOException {
        StringBuilder managed = new StringBuilder();
        StringBuilder dependencies = new StringBuilder();
        StringBuilder plugins = new StringBuilder();
        for (Snippets.Snippet pom : snippets.of(app, "pom")) {
            String rest = pom.content();
            Matcher dm = DEPENDENCY_MANAGEMENT.matcher(rest);
            if (dm.find()) {
                Matcher inner = DEPENDENCIES.matcher(dm.group(1));
                if (!inner.find()) {
                    throw new IllegalStateException(pom.source() + ": <dependencyManagement> without <dependencies>");
                }
                managed.append(inner.group(1));
                rest = rest.substring(0, dm.start()) + rest.substring(dm.end());
            }
            Matcher build = BUILD_PLUGINS.matcher(rest);
            if (build.find()) {
                plugins.append(build.group(1));
                rest = rest.substring(0, build.start()) + rest.substring(build.end());
            }
            Matcher deps = DEPENDENCIES.matcher(rest);
            if (deps.find()) {
                dependencies.append(deps.group(1));
                rest = rest.substring(0, deps.start()) + rest.substring(deps.end());
            }
            // What is left: bare <dependency> elements, and comments.
            dependencies.append(rest);
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("pom.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>quickstart</groupId>
                  <artifactId>%s</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>17</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                  <dependencyManagement>
                    <dependencies>%s</dependencies>
                  </dependencyManagement>
                  <dependencies>%s</dependencies>
                  <build>
                    <pluginManagement>
                      <plugins>
                        <plugin>
                          <groupId>org.apache.maven.plugins</groupId>
                          <artifactId>maven-compiler-plugin</artifactId>
                          <version>3.16.0</version>
                        </plugin>
                        <plugin>
                          <groupId>org.apache.maven.plugins</groupId>
                          <artifactId>maven-resources-plugin</artifactId>
                          <version>3.3.1</version>
                        </plugin>
                        <plugin>
                          <groupId>org.apache.maven.plugins</groupId>
                          <artifactId>maven-jar-plugin</artifactId>
                          <version>3.4.2</version>
                        </plugin>
                      </plugins>
                    </pluginManagement>
                    <plugins>%s</plugins>
                  </build>
                </project>
                """.formatted(app, managed, dependencies, plugins));
        String main = null;
        for (Snippets.Snippet file : snippets.of(app, "file")) {
            Path target = dir.resolve(file.path()).normalize();
            if (!target.startsWith(dir)) {
                throw new IllegalStateException(file.source() + ": the path leaves the project: " + file.path());
            }
            Files.createDirectories(target.getParent());
            Files.writeString(target, file.content());
            if (file.path().endsWith(".java") && MAIN.matcher(file.content()).find()) {
                if (main != null) {
                    throw new IllegalStateException(file.source() + ": a second main class in " + app);
                }
                Matcher pkg = PACKAGE.matcher(file.content());
                String simple = target.getFileName().toString().replace(".java", "");
                main = pkg.find() ? pkg.group(1) + "." + simple : simple;
            }
        }
        if (main == null) {
            throw new IllegalStateException("No file block of " + app + " has a main method");
        }
        return main;
    }
}
