//! Markdown tables with padded columns, readable both in a terminal and as rendered markdown.

/// A table: a header row and body rows of the same width.
#[derive(Debug, Clone, Default)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers and no rows.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        Self {
            headers: headers.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells are left empty and extra cells are dropped, so the table stays rectangular.
    pub fn push<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let mut row: Vec<String> = cells.into_iter().map(Into::into).collect();
        row.resize(self.headers.len(), String::new());
        self.rows.push(row);
    }

    /// The table as markdown, one line per row, each line ending in a newline.
    pub fn to_markdown(&self) -> String {
        let escape = |cell: &str| cell.replace('|', "\\|").replace('\n', " ");
        let headers: Vec<String> = self.headers.iter().map(|h| escape(h)).collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| escape(c)).collect())
            .collect();
        let widths: Vec<usize> = (0..headers.len())
            .map(|column| {
                rows.iter()
                    .map(|row| row[column].chars().count())
                    .chain(std::iter::once(headers[column].chars().count()))
                    .max()
                    .unwrap_or(0)
                    .max(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(cell, &width)| format!("{cell}{}", " ".repeat(width - cell.chars().count())))
                .collect();
            format!("| {} |\n", padded.join(" | "))
        };
        let mut out = line(&headers);
        let rule: Vec<String> = widths.iter().map(|&width| "-".repeat(width)).collect();
        out.push_str(&line(&rule));
        for row in &rows {
            out.push_str(&line(row));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_to_the_widest_cell() {
        let mut table = Table::new(["module", "verdict"]);
        table.push(["reduce", "PASS"]);
        table.push(["m", "FAIL"]);
        assert_eq!(
            table.to_markdown(),
            "| module | verdict |\n| ------ | ------- |\n| reduce | PASS    |\n| m      | FAIL    |\n"
        );
    }

    #[test]
    fn pipes_are_escaped_and_short_rows_filled() {
        let mut table = Table::new(["a", "b"]);
        table.push(["x|y"]);
        assert_eq!(
            table.to_markdown(),
            "| a    | b   |\n| ---- | --- |\n| x\\|y |     |\n"
        );
    }
}
