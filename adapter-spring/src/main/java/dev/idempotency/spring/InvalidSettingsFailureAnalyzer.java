package dev.idempotency.spring;

import dev.idempotency.framework.InvalidSettingsException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Shows idempotency settings that cannot work ({@link InvalidSettingsException}) as Boot's
 * "APPLICATION FAILED TO START" report: what is wrong, by its keys, and what to change, instead of
 * the bean creation's stack trace.
 */
class InvalidSettingsFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSettingsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingsException cause) {
        return new FailureAnalysis("Invalid idempotency settings: " + cause.getMessage(),
                "Change " + String.join(" or ", cause.settings()) + " in the application's configuration.", cause);
    }
}
