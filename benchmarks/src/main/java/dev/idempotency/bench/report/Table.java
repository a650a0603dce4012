package dev.idempotency.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A Markdown table padded to aligned columns, so the same text reads well in a terminal and
 * renders in a Markdown viewer. Columns are left-aligned unless declared numeric (right).
 */
public final class Table {

    private final List<String> headers;
    private final boolean[] right;
    private final List<List<String>> rows = new ArrayList<>();

    /** Column headers; a header starting with {@code >} is a right-aligned (numeric) column. */
    public Table(String... headers) {
        this.headers = new ArrayList<>();
        this.right = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            right[i] = headers[i].startsWith(">");
            this.headers.add(right[i] ? headers[i].substring(1) : headers[i]);
        }
    }

    /** Adds a row; missing trailing cells are blank, extra cells are an error. */
    public Table row(String... cells) {
        if (cells.length > headers.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + headers.size()
                    + " columns: " + Arrays.toString(cells));
        }
        List<String> row = new ArrayList<>(Arrays.asList(cells));
        while (row.size() < headers.size()) {
            row.add("");
        }
        rows.add(row);
        return this;
    }

    public String render() {
        int[] width = new int[headers.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = Math.max(3, headers.get(c).length());
            for (List<String> row : rows) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, width);
        out.append('|');
        for (int c = 0; c < width.length; c++) {
            out.append(right[c] ? " " + "-".repeat(width[c] - 1) + ": |" : " " + "-".repeat(width[c]) + " |");
        }
        out.append('\n');
        rows.forEach(row -> line(out, row, width));
        return out.toString();
    }

    private void line(StringBuilder out, List<String> cells, int[] width) {
        out.append('|');
        for (int c = 0; c < width.length; c++) {
            String cell = cells.get(c);
            String pad = " ".repeat(width[c] - cell.length());
            out.append(' ').append(right[c] ? pad + cell : cell + pad).append(" |");
        }
        out.append('\n');
    }

    /** {@code 0.62×}; blank for NaN. */
    public static String ratio(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.2f×", value) : "";
    }

    /** A number with {@code decimals} places; blank for NaN. */
    public static String number(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%,." + decimals + "f", value) : "";
    }
}
