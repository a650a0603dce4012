package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JooqVersionTest {

    @Test
    void olderJooqIsRefusedWithTheVersionsNamed() {
        assertThatThrownBy(() -> JooqVersion.require("3.19.0")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("3.19.39").hasMessageContaining("3.19.0");
        assertThatThrownBy(() -> JooqVersion.require("3.18.30")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theTestedAndNewerJooqAreAccepted() {
        assertThatCode(() -> JooqVersion.require("3.19.39")).doesNotThrowAnyException();
        assertThatCode(() -> JooqVersion.require("3.19.40")).doesNotThrowAnyException();
        assertThatCode(() -> JooqVersion.require("3.20.1")).doesNotThrowAnyException();
    }

    @Test
    void theClasspathsJooqPassesAndNumbersCompareAsNumbers() {
        assertThatCode(() -> JooqVersion.require(org.jooq.Constants.VERSION)).doesNotThrowAnyException();
        assertThat(JooqVersion.compare("3.19.100", "3.19.39")).isPositive();
        assertThat(JooqVersion.compare("3.19", "3.19.0")).isZero();
    }
}
