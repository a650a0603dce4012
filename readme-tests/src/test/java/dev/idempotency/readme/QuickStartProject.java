package dev.idempotency.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user's project made of one application's README blocks: its {@code pom.xml} is the README's
 * pom fragments, merged by section, under nothing but the project's coordinates — the Java
 * release and the plugin versions must come from the fragments, so the build proves that they are
 * enough for a plain Maven 3.8. Every {@code file} block is written where its marker says.
 */
final class QuickStartProject {

    private static final Pattern PROPERTIES = section("properties");
    private static final Pattern DEPENDENCY_MANAGEMENT = section("dependencyManagement");
    private static final Pattern DEPENDENCIES = section("dependencies");
    private static final Pattern BUILD = section("build");
    private static final Pattern PLUGIN_MANAGEMENT = section("pluginManagement");
    private static final Pattern PLUGINS = section("plugins");
    private static final Pattern MAIN = Pattern.compile("public\\s+static\\s+void\\s+main\\s*\\(");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);

    private QuickStartProject() {
    }

    private static Pattern section(String tag) {
        return Pattern.compile("<" + tag + ">(.*?)</" + tag + ">", Pattern.DOTALL);
    }

    /**
     * Writes the project into {@code dir}; returns the main class (the file block with a {@code main}),
     * or null when no block has one: a Quarkus application, whose build makes its own launcher.
     */
    static String write(Path dir, String app, Snippets snippets) throws IOException {
        StringBuilder properties = new StringBuilder();
        StringBuilder managed = new StringBuilder();
        StringBuilder dependencies = new StringBuilder();
        StringBuilder managedPlugins = new StringBuilder();
        StringBuilder plugins = new StringBuilder();
        for (Snippets.Snippet pom : snippets.of(app, "pom")) {
            String rest = pom.content();
            Matcher props = PROPERTIES.matcher(rest);
            if (props.find()) {
                properties.append(props.group(1));
                rest = rest.substring(0, props.start()) + rest.substring(props.end());
            }
            Matcher dm = DEPENDENCY_MANAGEMENT.matcher(rest);
            if (dm.find()) {
                Matcher inner = DEPENDENCIES.matcher(dm.group(1));
                if (!inner.find()) {
                    throw new IllegalStateException(pom.source() + ": <dependencyManagement> without <dependencies>");
                }
                managed.append(inner.group(1));
                rest = rest.substring(0, dm.start()) + rest.substring(dm.end());
            }
            Matcher build = BUILD.matcher(rest);
            if (build.find()) {
                String inBuild = build.group(1);
                Matcher pm = PLUGIN_MANAGEMENT.matcher(inBuild);
                if (pm.find()) {
                    Matcher inner = PLUGINS.matcher(pm.group(1));
                    if (!inner.find()) {
                        throw new IllegalStateException(pom.source() + ": <pluginManagement> without <plugins>");
                    }
                    managedPlugins.append(inner.group(1));
                    inBuild = inBuild.substring(0, pm.start()) + inBuild.substring(pm.end());
                }
                Matcher used = PLUGINS.matcher(inBuild);
                if (used.find()) {
                    plugins.append(used.group(1));
                    inBuild = inBuild.substring(0, used.start()) + inBuild.substring(used.end());
                }
                if (!inBuild.replaceAll("(?s)<!--.*?-->", "").isBlank()) {
                    throw new IllegalStateException(pom.source() + ": <build> holds more than plugins: " + inBuild);
                }
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
                  <properties>%s</properties>
                  <dependencyManagement>
                    <dependencies>%s</dependencies>
                  </dependencyManagement>
                  <dependencies>%s</dependencies>
                  <build>
                    <pluginManagement>
                      <plugins>%s</plugins>
                    </pluginManagement>
                    <plugins>%s</plugins>
                  </build>
                </project>
                """.formatted(app, properties, managed, dependencies, managedPlugins, plugins));
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
        return main;
    }
}
