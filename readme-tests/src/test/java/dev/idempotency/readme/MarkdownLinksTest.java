package dev.idempotency.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the project's Markdown pages (outside code) names a file that exists and,
 * with a {@code #fragment} into a Markdown page, a heading of that page, as GitHub spells its
 * anchors: lower case, punctuation dropped, spaces as hyphens, {@code -1}, {@code -2} for repeats.
 */
class MarkdownLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    private final Path root = Path.of(System.getProperty("idempotency.root", "..")).toAbsolutePath().normalize();

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = prose(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = LINK.matcher(INLINE_CODE.matcher(lines.get(i)).replaceAll(""));
                while (m.find()) {
                    String problem = check(page, m.group(1));
                    if (problem != null) {
                        broken.add(root.relativize(page) + ":" + (i + 1) + ": " + problem + ": " + m.group(1));
                    }
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void anchorsAreSpelledAsGitHubDoes() {
        assertThat(anchors(List.of("# How a request is decided", "## The path", "### `PassThrough`, and more!",
                "## The path", "```", "## not a heading", "```"))).containsExactlyInAnyOrder(
                "how-a-request-is-decided", "the-path", "passthrough-and-more", "the-path-1");
    }

    private String check(Path page, String target) throws IOException {
        if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
            return null; // https:, mailto: — not ours to check here
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (hash >= 0 && resolved.toString().endsWith(".md")
                && !anchors(Files.readAllLines(resolved)).contains(target.substring(hash + 1))) {
            return "no such heading";
        }
        return null;
    }

    /** The pages: every {@code *.md} of the repository, build output and hidden directories aside. */
    private List<Path> pages() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> Stream.of(root.relativize(p).toString().split("[/\\\\]"))
                            .noneMatch(part -> part.equals("target") || part.startsWith(".")))
                    .sorted().toList();
        }
    }

    /** The page's lines with fenced code blanked out (line numbers kept). */
    private static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean code = false;
        for (String line : Files.readAllLines(page)) {
            boolean fence = line.startsWith("```");
            lines.add(code || fence ? "" : line);
            code ^= fence;
        }
        return lines;
    }

    static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean code = false;
        for (String line : lines) {
            if (line.startsWith("```")) {
                code = !code;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (code || !m.matches()) {
                continue;
            }
            String text = m.group(1).replace("`", "").replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1");
            String slug = text.strip().toLowerCase(java.util.Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                    .replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }
}
