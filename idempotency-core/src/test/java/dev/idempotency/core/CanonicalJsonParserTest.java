package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CanonicalJsonParserTest {

    @Test
    void plainAsciiBytesCountsTheLeadingBytesAStringCopiesUnchanged() {
        SplittableRandom random = new SplittableRandom(8);
        byte[] special = {0, 0x1F, '"', '\\', (byte) 0x80, (byte) 0xFF, (byte) 0xC3, 0x7F, 0x20, 0x21, 0x5B, 0x5D};
        for (int i = 0; i < 200_000; i++) {
            byte[] bytes = new byte[8];
            for (int j = 0; j < 8; j++) {
                bytes[j] = random.nextInt(4) == 0 ? special[random.nextInt(special.length)]
                        : (byte) (0x20 + random.nextInt(0x60));
            }
            long word = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
            assertThat(CanonicalJsonParser.plainAsciiBytes(word)).as(java.util.Arrays.toString(bytes))
                    .isEqualTo(naivePlainBytes(bytes));
        }
    }

    private static int naivePlainBytes(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] >= 0x20 && bytes[n] != '"' && bytes[n] != '\\') {
            n++;
        }
        return n;
    }
}
