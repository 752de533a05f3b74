//! A GitHub-flavoured markdown table, for CI job summaries and pull-request comments.

use super::Table;

/// Renders `table` as markdown; the total row is bold.
pub fn render(table: &Table) -> String {
    let mut out = String::new();
    push_row(&mut out, &table.headers);
    let rule: Vec<String> = table
        .numeric
        .iter()
        .chain(std::iter::repeat(&false))
        .take(table.headers.len())
        .map(|right| if *right { "---:".into() } else { "---".into() })
        .collect();
    push_row(&mut out, &rule);
    for row in &table.rows {
        push_row(&mut out, row);
    }
    if let Some(total) = &table.total {
        let bold: Vec<String> = total
            .iter()
            .map(|c| {
                if c.is_empty() || c == "-" {
                    c.clone()
                } else {
                    format!("**{c}**")
                }
            })
            .collect();
        push_row(&mut out, &bold);
    }
    if !table.notes.is_empty() {
        out.push('\n');
        // Notes may open with their own blank line (for the terminal); one is enough here.
        let skip = usize::from(table.notes.first().is_some_and(|n| n.is_empty()));
        for note in &table.notes[skip..] {
            out.push_str(note);
            out.push('\n');
        }
    }
    out
}

fn push_row(out: &mut String, cells: &[String]) {
    let escaped: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    out.push_str("| ");
    out.push_str(&escaped.join(" | "));
    out.push_str(" |\n");
}
