package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * jOOQ's logo and tips stay out of the application's log. jOOQ decides once per JVM, so each case
 * runs in a JVM of its own ({@link #main}), which captures everything jOOQ logs at INFO while a
 * store is built, and prints it with the two properties as the store left them.
 */
class JooqBannerTest {

    private static final String LOGO = "Thank you for using jOOQ";
    private static final String TIP = "tip of the day";

    @Test
    void aStoreSwitchesOffJooqsLogoAndTipsWhenTheApplicationLeftThemUnset() throws Exception {
        String out = runInNewJvm();
        assertThat(out).contains("no-logo=true", "no-tips=true", "statements built");
        assertThat(out).doesNotContain(LOGO).doesNotContainIgnoringCase(TIP);
    }

    @Test
    void whatTheApplicationSetItselfIsKept() throws Exception {
        String out = runInNewJvm("-Dorg.jooq.no-logo=false", "-Dorg.jooq.no-tips=false");
        assertThat(out).contains("no-logo=false", "no-tips=false");
        assertThat(out).as("the capture sees jOOQ's banner when it is printed").contains(LOGO);
        assertThat(out).containsIgnoringCase(TIP);
    }

    private static String runInNewJvm(String... properties) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(properties));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JooqBannerTest.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out;
    }

    /** Builds a store and runs a jOOQ query with jOOQ's log captured at INFO; prints what it got. */
    public static void main(String[] args) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        ch.qos.logback.classic.Logger jooq = context.getLogger("org.jooq");
        jooq.setLevel(Level.INFO);
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.setContext(context);
        captured.start();
        jooq.addAppender(captured);

        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:banner");
        JdbcStore.builder(h2).dialect(SQLDialect.H2).build();
        // The store's statements are SQL text (idempotency-sql): jOOQ first renders and runs when a
        // handler does, through the atomic mode's DSLContext (AtomicTransaction.dsl()).
        org.jooq.impl.DSL.using(h2, SQLDialect.H2).selectOne().fetch();
        System.out.println("statements built");
        System.out.println("no-logo=" + System.getProperty(JooqBanner.NO_LOGO));
        System.out.println("no-tips=" + System.getProperty(JooqBanner.NO_TIPS));
        for (ILoggingEvent event : captured.list) {
            System.out.println("captured: " + event.getLoggerName() + " " + event.getFormattedMessage());
        }
    }
}
