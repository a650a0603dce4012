package dev.idempotency.bench;

import java.nio.charset.StandardCharsets;

/**
 * Realistic JSON request bodies of a given size: an order with line items. As clients commonly
 * send them, members are not in canonical order (each line item's are in reverse order), so a
 * canonicalizer sorts every object; the prices are {@code Double.toString} output, mostly short
 * decimals, some with 17 significant digits.
 */
final class Bodies {

    private Bodies() {
    }

    static byte[] json(int targetBytes) {
        StringBuilder sb = new StringBuilder(targetBytes + 128);
        sb.append("{\"customer\":{\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\",\"tier\":\"gold\"},")
                .append("\"currency\":\"EUR\",\"items\":[");
        int i = 0;
        while (sb.length() < targetBytes - 80) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"sku\":\"SKU-").append(10000 + i).append("\",\"quantity\":").append(i % 7 + 1)
                    .append(",\"price\":").append(19.99 + i).append(",\"gift\":").append(i % 2 == 0).append('}');
            i++;
        }
        sb.append("],\"note\":\"leave at the door \\u00e9\",\"total\":").append(i * 21.5).append('}');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
