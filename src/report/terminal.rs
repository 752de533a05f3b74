//! The table people read on a terminal: aligned columns, numbers right-aligned, a rule above
//! the total row.

use super::Table;

/// Renders `table` with columns padded to their widest cell.
pub fn render(table: &Table) -> String {
    let all_rows = std::iter::once(&table.headers)
        .chain(&table.rows)
        .chain(table.total.as_ref());
    let mut widths = vec![0; table.headers.len()];
    for row in all_rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    push_row(
        &mut out,
        &table.headers,
        &widths,
        &vec![false; widths.len()],
    );
    for row in &table.rows {
        push_row(&mut out, row, &widths, &table.numeric);
    }
    if let Some(total) = &table.total {
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        push_row(&mut out, &rule, &widths, &table.numeric);
        push_row(&mut out, total, &widths, &table.numeric);
    }
    for note in &table.notes {
        out.push_str(note);
        out.push('\n');
    }
    out
}

fn push_row(out: &mut String, row: &[String], widths: &[usize], numeric: &[bool]) {
    let cells: Vec<String> = row
        .iter()
        .zip(widths)
        .zip(numeric.iter().chain(std::iter::repeat(&false)))
        .map(|((cell, w), right)| {
            if *right {
                format!("{cell:>w$}")
            } else {
                format!("{cell:<w$}")
            }
        })
        .collect();
    out.push_str(cells.join("  ").trim_end());
    out.push('\n');
}
