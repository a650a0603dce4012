package dev.idempotency.examples;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PostgreSQL {@code DATABASE_URL} taken apart, in either of its two spellings:
 * <ul>
 *   <li>the libpq / Heroku form {@code postgresql://[user[:password]@]host[:port][/database][?name=value&...]}
 *       ({@code postgres://} too);</li>
 *   <li>the JDBC form {@code jdbc:postgresql://host[:port][/database][?user=...&password=...&...]}.</li>
 * </ul>
 * Percent-escapes in the user, the password and the parameters are decoded. One host only.
 *
 * @param host       the server's host
 * @param port       its port, 5432 when not given
 * @param database   the database, {@code postgres} when not given (libpq's and the driver's default is the user's name;
 *                   the examples name it)
 * @param user       the user: the URL's user part or its {@code user} parameter; {@code postgres} when neither
 * @param password   the password, empty when none
 * @param parameters every other parameter, in order (e.g. {@code currentSchema}, {@code ApplicationName})
 */
public record PostgresUrl(String host, int port, String database, String user, String password,
                          Map<String, String> parameters) {

    private static final Pattern URL = Pattern.compile(
            "^(jdbc:postgresql|postgresql|postgres)://(?:([^@/?]*)@)?([^:/?]+|\\[[^\\]]+\\])(?::(\\d+))?(?:/([^?]*))?(?:\\?(.*))?$");

    public PostgresUrl {
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters)); // in the URL's order
    }

    /** Whether {@code url} is a PostgreSQL URL in one of the two forms. */
    public static boolean isPostgres(String url) {
        return url.startsWith("jdbc:postgresql:") || url.startsWith("postgresql://") || url.startsWith("postgres://");
    }

    /**
     * Parses {@code url}.
     *
     * @throws IllegalArgumentException naming {@code DATABASE_URL} when it is not a single-host PostgreSQL URL
     */
    public static PostgresUrl parse(String url) {
        Matcher m = URL.matcher(url);
        if (!m.matches() || m.group(3).contains(",")) {
            throw new IllegalArgumentException("DATABASE_URL is not a PostgreSQL URL this example understands "
                    + "(postgresql://user:password@host:port/database or jdbc:postgresql://host:port/database?user=..., "
                    + "one host): '" + withoutCredentials(url) + "'");
        }
        boolean jdbc = m.group(1).startsWith("jdbc:");
        String user = null;
        String password = "";
        if (m.group(2) != null) {
            if (jdbc) {
                throw new IllegalArgumentException("DATABASE_URL: the JDBC form takes the user as a parameter "
                        + "(jdbc:postgresql://host/db?user=...), not before the host");
            }
            String[] userInfo = m.group(2).split(":", 2);
            user = decode(userInfo[0]);
            password = userInfo.length > 1 ? decode(userInfo[1]) : "";
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        if (m.group(6) != null && !m.group(6).isEmpty()) {
            for (String pair : m.group(6).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                String[] nameValue = pair.split("=", 2);
                parameters.put(decode(nameValue[0]), nameValue.length > 1 ? decode(nameValue[1]) : "");
            }
        }
        String userParameter = parameters.remove("user");
        String passwordParameter = parameters.remove("password");
        if (user == null) {
            user = userParameter;
        }
        if (password.isEmpty() && passwordParameter != null) {
            password = passwordParameter;
        }
        String database = m.group(5) == null || m.group(5).isEmpty() ? "postgres" : decode(m.group(5));
        return new PostgresUrl(m.group(3), m.group(4) == null ? 5432 : Integer.parseInt(m.group(4)), database,
                user == null || user.isEmpty() ? "postgres" : user, password, parameters);
    }

    /** The JDBC form: {@code jdbc:postgresql://host:port/database?user=...[&password=...][&other parameters]}. */
    public String jdbcUrl() {
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(host).append(':').append(port).append('/')
                .append(database).append("?user=").append(encode(user));
        if (!password.isEmpty()) {
            url.append("&password=").append(encode(password));
        }
        parameters.forEach((name, value) -> url.append('&').append(encode(name)).append('=').append(encode(value)));
        return url.toString();
    }

    /** The schema the connections should use: the {@code currentSchema} parameter (the JDBC driver's name). */
    public Optional<String> currentSchema() {
        return Optional.ofNullable(parameters.get("currentSchema"));
    }

    /** The {@code ApplicationName} (JDBC) or {@code application_name} (libpq) parameter. */
    public Optional<String> applicationName() {
        return Optional.ofNullable(parameters.getOrDefault("ApplicationName", parameters.get("application_name")));
    }

    /** E.g. {@code postgresql://127.0.0.1:5432/test}: for start-up lines and messages, no user or password. */
    public String display() {
        return "postgresql://" + host + ":" + port + "/" + database;
    }

    /** {@code url} with a {@code user:password@} part and the query string cut off, for messages. */
    static String withoutCredentials(String url) {
        String noQuery = url.replaceFirst("[?;].*$", "");
        return noQuery.replaceFirst("://[^@/]*@", "://");
    }

    private static String decode(String value) {
        return URLDecoder.decode(value, StandardCharsets.UTF_8);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
