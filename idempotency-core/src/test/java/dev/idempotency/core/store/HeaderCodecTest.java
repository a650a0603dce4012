package dev.idempotency.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HeaderCodecTest {

    @Test
    void encodesAsJacksonsGeneratorDidAndDecodesBack() throws IOException {
        Random random = new Random(28);
        String alphabet = "aZ09-_/;=, \"\\\u0000\u0001\b\t\n\f\r\u001f\u007f\u00e9\u20ac\ud83d\ude00";
        for (int round = 0; round < 2_000; round++) {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            int names = random.nextInt(4);
            for (int n = 0; n < names; n++) {
                List<String> values = new ArrayList<>();
                int count = 1 + random.nextInt(3);
                for (int v = 0; v < count; v++) {
                    values.add(text(random, alphabet));
                }
                headers.put("H" + n + text(random, alphabet), values);
            }
            String encoded = HeaderCodec.encode(headers);
            assertThat(encoded).isEqualTo(jackson(headers));
            assertThat(HeaderCodec.decode(encoded, HeaderCodec.FORMAT_VERSION)).isEqualTo(headers);
        }
    }

    @Test
    void encodesTheEmptyMapAsAnEmptyArray() {
        assertThat(HeaderCodec.encode(Map.of())).isEqualTo("[]");
        assertThat(HeaderCodec.encode(Map.of("Location", List.of("/orders/7")))).isEqualTo("[[\"Location\",\"/orders/7\"]]");
    }

    private static String text(Random random, String alphabet) {
        StringBuilder sb = new StringBuilder();
        int length = random.nextInt(8);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** What the codec wrote before: Jackson's generator. */
    private static String jackson(Map<String, List<String>> headers) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartArray();
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                for (String value : e.getValue()) {
                    g.writeStartArray();
                    g.writeString(e.getKey());
                    g.writeString(value);
                    g.writeEndArray();
                }
            }
            g.writeEndArray();
        }
        return out.toString();
    }
}
