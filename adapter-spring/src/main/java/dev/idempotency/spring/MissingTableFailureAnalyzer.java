package dev.idempotency.spring;

import dev.idempotency.framework.MissingTableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Shows the schema check's missing table ({@link MissingTableException}) as Boot's "APPLICATION
 * FAILED TO START" report: which table, and the two ways to have it, instead of the bean
 * creation's stack trace.
 */
class MissingTableFailureAnalyzer extends AbstractFailureAnalyzer<MissingTableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingTableException cause) {
        return new FailureAnalysis(cause.getMessage(), "Add the table to your migrations (the files under "
                + "db/idempotency/ in idempotency-sql), or have the store create it at start, after your Flyway or "
                + "Liquibase, with the initialize-schema setting named above.", cause);
    }
}
