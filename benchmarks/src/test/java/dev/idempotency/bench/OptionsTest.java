package dev.idempotency.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code ./benchmarks/run --help} and the README's option tables name every option, and each with
 * the default (and {@code --quick} value) the code uses. Runs {@code bash run --help}, which
 * prints without building.
 */
class OptionsTest {

    private static final Path ROOT = Path.of("..");
    private static final String ENGINE_HELP = "usage: ./benchmarks/run --engine-pg";
    private static final String ENGINE_TABLE = "`./benchmarks/run --engine-pg` takes its own";

    private static String help() throws IOException, InterruptedException {
        Process bash = new ProcessBuilder("bash", "run", "--help").redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).isZero();
        return out;
    }

    private static String readme() throws IOException {
        return Files.readString(Path.of("README.md"));
    }

    /** An option's lines in the help: its own and the indented ones after it. */
    private static String helpParagraph(String help, String name) {
        Matcher m = Pattern.compile("(?m)^  " + Pattern.quote(name) + "\\b.*\\n(?: {4,}.*\\n)*").matcher(help);
        assertThat(m.find()).as("--help describes " + name).isTrue();
        return m.group();
    }

    /** An option's row in a README table. */
    private static String readmeRow(String readme, String name) {
        Matcher m = Pattern.compile("(?m)^\\| [^|]*`" + Pattern.quote(name) + "`.*$").matcher(readme);
        assertThat(m.find()).as("the README's table has " + name).isTrue();
        return m.group();
    }

    private static Set<String> names(String text, String regex) {
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            Matcher option = Pattern.compile("--[a-z-]+").matcher(m.group(1));
            while (option.find()) {
                names.add(option.group());
            }
        }
        return names;
    }

    private static String name(String arg) {
        return arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
    }

    private static String value(String arg) {
        return arg.substring(arg.indexOf('=') + 1);
    }

    @Test
    void helpAndReadmeNameEveryOptionOfTheRun() throws Exception {
        Set<String> options = new TreeSet<>();
        Options.parse(ROOT, "--no-http", "--no-purge", "--no-jmh", "--jfr").resolvedArgs().forEach(a -> options.add(name(a)));
        options.add("--quick");
        String help = help();
        String readme = readme();

        assertThat(names(help.substring(0, help.indexOf(ENGINE_HELP)), "(?m)^  (--[a-z-]+)")).isEqualTo(options);
        assertThat(names(readme.substring(readme.indexOf("## Options"), readme.indexOf(ENGINE_TABLE)),
                "(?m)^\\| (`--[^|]*)\\|")).isEqualTo(options);
        Set<String> engine = new TreeSet<>();
        EngineOptions.parse().resolvedArgs().forEach(a -> engine.add(name(a)));
        assertThat(names(help.substring(help.indexOf(ENGINE_HELP) + ENGINE_HELP.length()), "(?m)^  (--[a-z-]+)"))
                .isEqualTo(engine);
        assertThat(names(readme.substring(readme.indexOf(ENGINE_TABLE), readme.indexOf("## Current figures")),
                "(?m)^\\| (`--[^|]*)\\|")).isEqualTo(engine);
    }

    @Test
    void helpAndReadmeGiveTheDefaultsAndQuickValuesTheCodeUses() throws Exception {
        String help = help();
        String runHelp = help.substring(0, help.indexOf(ENGINE_HELP));
        String readme = readme();
        String runTable = readme.substring(readme.indexOf("## Options"), readme.indexOf(ENGINE_TABLE));
        List<String> defaults = Options.parse(ROOT).resolvedArgs();
        List<String> quick = Options.parse(ROOT, "--quick").resolvedArgs();
        List<String> checked = new ArrayList<>();
        for (int i = 0; i < defaults.size(); i++) {
            String arg = defaults.get(i);
            String name = name(arg);
            String paragraph = helpParagraph(runHelp, name);
            String row = readmeRow(runTable, name);
            if (name.endsWith("-url")) {
                String variable = name.equals("--redis-url") ? "BENCH_REDIS_URL" : "BENCH_DATABASE_URL";
                assertThat(paragraph).contains("$" + variable);
                assertThat(row).contains("`" + variable + "`");
                if (System.getenv(variable) == null) {
                    assertThat(paragraph.replaceAll("\\s+", " ")).contains(value(arg));
                    assertThat(row).contains("`" + value(arg) + "`");
                }
            } else {
                assertThat(paragraph).as(name).containsAnyOf(arg, "default " + value(arg));
                assertThat(row).as(name).contains("| `" + value(arg) + "`");
            }
            if (!quick.get(i).equals(arg)) {
                assertThat(paragraph).as(name).contains("--quick: " + value(quick.get(i)));
                assertThat(row).as(name).contains("| `" + value(quick.get(i)) + "` |");
            }
            checked.add(name);
        }
        assertThat(checked).contains("--rounds", "--requests", "--jmh-seconds", "--purge-rows");

        String engineHelp = help.substring(help.indexOf(ENGINE_HELP));
        String engineTable = readme.substring(readme.indexOf(ENGINE_TABLE), readme.indexOf("## Current figures"));
        for (String arg : EngineOptions.parse().resolvedArgs()) {
            if (!name(arg).equals("--database-url")) {
                assertThat(helpParagraph(engineHelp, name(arg))).as(arg).startsWith("  " + arg + " ");
                assertThat(readmeRow(engineTable, name(arg))).as(arg).contains("| `" + value(arg) + "` |");
            }
        }
    }

    @Test
    void theUsageTheRunnerPrintsIsTheHelp() throws Exception {
        String help = help();
        assertThat(help).contains(Options.USAGE);
        assertThat(Arrays.stream(Options.USAGE.split("\n")).filter(l -> l.length() > 110)).isEmpty();
    }
}
