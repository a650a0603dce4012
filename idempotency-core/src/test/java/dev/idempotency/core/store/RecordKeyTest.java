package dev.idempotency.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What logs show of a key: never the whole of it, however short. */
class RecordKeyTest {

    @ParameterizedTest
    @ValueSource(strings = {"Z", "pay-42", "demo-1", "12345678", "123456789", "7c9e6679-7425-40de-944b-e07fc1f90ae7"})
    void aPreviewNeverContainsTheWholeKey(String key) {
        RecordKey record = new RecordKey("t", "POST", "/orders", key);

        assertThat(RecordKey.preview(key)).doesNotContain(key);
        assertThat(record.keyPreview()).doesNotContain(key);
        assertThat(record.toString()).doesNotContain(key);
    }

    @ParameterizedTest
    @CsvSource({
            "pay-42, ****",
            "12345678, ****",
            "123456789, 1234…",
            "7c9e6679-7425-40de-944b-e07fc1f90ae7, 7c9e…",
    })
    void aKeyLongerThanEightShowsItsFirstFourCharactersAShorterOneAMask(String key, String preview) {
        assertThat(RecordKey.preview(key)).isEqualTo(preview);
    }
}
