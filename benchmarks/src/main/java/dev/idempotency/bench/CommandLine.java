package dev.idempotency.bench;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The command that made a results file, for its header: the arguments as given, and every option
 * resolved (defaults, {@code --quick} and the environment applied), each line one a shell can run
 * again. Passwords in URLs are masked, as the files are committed.
 */
final class CommandLine {

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,@%+-]+");

    private CommandLine() {
    }

    /** Two Markdown list items: {@code - command:} with {@code given}, {@code - resolved:} with {@code resolved}. */
    static String header(String command, List<String> given, List<String> resolved) {
        return "- command: " + code(line(command, given)) + "\n- resolved: " + code(line(command, resolved)) + "\n";
    }

    /** {@code command} followed by the arguments, each masked and shell-quoted where it needs it. */
    static String line(String command, List<String> args) {
        StringBuilder line = new StringBuilder(command);
        args.forEach(arg -> line.append(' ').append(quote(mask(arg))));
        return line.toString();
    }

    /** {@code arg} as one shell word: as is when plain, else in single quotes. */
    static String quote(String arg) {
        return PLAIN.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    /** A URL's password ({@code password=…} or {@code user:…@}) replaced by {@code ***}. */
    static String mask(String arg) {
        return arg.replaceAll("(?i)(password=)[^&\\s]*", "$1***").replaceAll("(://[^/:@\\s]*:)[^@/\\s]*@", "$1***@");
    }

    /** Inline Markdown code, fenced with two backticks when the text holds one. */
    private static String code(String text) {
        return text.contains("`") ? "`` " + text + " ``" : "`" + text + "`";
    }
}
