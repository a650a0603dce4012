package dev.idempotency.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The run's PostgreSQL schemas, one per service, so every configuration starts from empty tables
 * of its own; all are dropped at the end.
 */
final class BenchDatabase implements AutoCloseable {

    private final String baseUrl;
    private final List<String> schemas = new ArrayList<>();

    /** @param baseUrl a {@code jdbc:postgresql:} URL of the database to work in */
    BenchDatabase(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** Creates a schema; it is dropped by {@link #dropSchemas()} or {@link #close()}. */
    synchronized String createSchema(String schema) throws SQLException {
        if (!schema.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("not a plain schema name: " + schema);
        }
        execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
        return schema;
    }

    /**
     * The URL a service uses: the base URL in {@code schema}, through the counting driver, its
     * connections named {@code applicationName} (to find their backends, see {@link #backendPids}).
     */
    String serviceUrl(String schema, String applicationName) {
        String url = plainServiceUrl(schema, applicationName);
        return "jdbc:counting:" + url.substring("jdbc:".length());
    }

    /** {@link #serviceUrl} without the counting driver: a {@code jdbc:postgresql:} URL. */
    String plainServiceUrl(String schema, String applicationName) {
        return baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema
                + "&ApplicationName=" + applicationName;
    }

    /** The server's TCP port, from the base URL (5432 when it names none). */
    int port() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^jdbc:postgresql://[^/:?]+(?::(\\d+))?").matcher(baseUrl);
        return m.find() && m.group(1) != null ? Integer.parseInt(m.group(1)) : 5432;
    }

    /** The server processes serving the connections named {@code applicationName}. */
    List<Long> backendPids(String applicationName) throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (Connection c = connect();
             var select = c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            select.setString(1, applicationName);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getLong(1));
                }
            }
        }
        return pids;
    }

    /** E.g. {@code PostgreSQL 15.20 (fsync on, synchronous_commit on)}: the version and what a commit costs. */
    String describe() throws SQLException {
        String version = show("server_version");
        int space = version.indexOf(' ');
        return "PostgreSQL " + (space < 0 ? version : version.substring(0, space)) + " (fsync " + show("fsync")
                + ", synchronous_commit " + show("synchronous_commit") + ")";
    }

    /** A checkpoint now, so that none falls due in the middle of a measurement; quietly skipped without the right. */
    void checkpoint() {
        try {
            execute("CHECKPOINT");
        } catch (SQLException e) {
            // needs superuser or pg_checkpoint; the run is only a little noisier without it
        }
    }

    /** Drops every schema created so far. */
    synchronized void dropSchemas() throws SQLException {
        SQLException failure = null;
        for (String schema : schemas) {
            try {
                execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            } catch (SQLException e) {
                failure = e;
            }
        }
        schemas.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() throws SQLException {
        dropSchemas();
    }

    private String show(String setting) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(baseUrl);
    }
}
