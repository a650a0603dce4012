package dev.idempotency.spring;

import dev.idempotency.jdbc.JdbcStore;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.springframework.util.ClassUtils;

/** What {@code idempotency.jdbc.initialize-schema: embedded} counts as an embedded database. */
final class EmbeddedDatabases {

    private static final String BOOT_EMBEDDED = "org.springframework.boot.jdbc.EmbeddedDatabaseConnection";

    private EmbeddedDatabases() {
    }

    /**
     * Spring Boot's own answer (an in-memory H2, HSQLDB or Derby) when spring-boot-jdbc is there,
     * as for Boot's other {@code initialize-schema} settings; without it, any H2 database.
     */
    static Predicate<DataSource> detector(JdbcStore store) {
        if (ClassUtils.isPresent(BOOT_EMBEDDED, EmbeddedDatabases.class.getClassLoader())) {
            return org.springframework.boot.jdbc.EmbeddedDatabaseConnection::isEmbedded;
        }
        return dataSource -> store.dialect() == SQLDialect.H2;
    }
}
