package dev.idempotency.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void padsColumnsAndAlignsNumbersRight() {
        String table = new Table("config", ">req/s", ">× off")
                .row("off", "3,120", "1.00×")
                .row("reserve", "1,874", "0.60×")
                .row("atomic", "n/a (not available)")
                .render();

        assertThat(table).isEqualTo("""
                | config  |               req/s | × off |
                | ------- | ------------------: | ----: |
                | off     |               3,120 | 1.00× |
                | reserve |               1,874 | 0.60× |
                | atomic  | n/a (not available) |       |
                """);
    }

    @Test
    void formatsRatiosAndNumbersAndLeavesNaNBlank() {
        assertThat(Table.ratio(0.6049)).isEqualTo("0.60×");
        assertThat(Table.ratio(Double.NaN)).isEmpty();
        assertThat(Table.number(12345.678, 1)).isEqualTo("12,345.7");
        assertThat(Table.number(2.0, 2)).isEqualTo("2.00");
        assertThat(Table.number(Double.POSITIVE_INFINITY, 0)).isEmpty();
    }

    @Test
    void refusesRowsWiderThanTheHeader() {
        assertThatThrownBy(() -> new Table("a").row("1", "2")).isInstanceOf(IllegalArgumentException.class);
    }
}
