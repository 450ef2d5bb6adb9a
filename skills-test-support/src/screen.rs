//! What a person sees: bytes written to a terminal, run through a terminal emulator (`vt100`),
//! keeping only the text that can be seen (a cell whose colour is its background's is blank).

/// The visible text of bytes written to a `rows` x `cols` terminal, one string per row,
/// trailing blanks trimmed; and, per row, whether its visible text is all in reverse video.
pub struct Screen {
    /// The visible text of each row.
    pub rows: Vec<String>,
    /// Whether each row's visible text is all in reverse video.
    pub reversed: Vec<bool>,
}

impl Screen {
    /// `bytes` as a program writes them: each line break goes out as `\r\n`, as a terminal's
    /// line discipline sends it (`ONLCR`); bytes read from a pseudo-terminal have that already,
    /// and the extra `\r` changes nothing.
    pub fn of(bytes: &[u8], rows: u16, cols: u16) -> Screen {
        let mut sent = Vec::with_capacity(bytes.len());
        for &byte in bytes {
            if byte == b'\n' {
                sent.push(b'\r');
            }
            sent.push(byte);
        }
        let bytes = &sent[..];
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal has rows and columns");
        let mut parser = vt100::Parser::new(size(rows), size(cols), 0);
        parser.process(bytes);
        let screen = parser.screen();
        let mut shown = Vec::new();
        let mut reversed = Vec::new();
        for row in 0..rows {
            let mut line = String::new();
            let mut all_inverse = true;
            for col in 0..cols {
                let Some(cell) = screen.cell(row, col) else {
                    continue;
                };
                if cell.is_wide_continuation() {
                    continue;
                }
                let seen =
                    cell.fgcolor() == vt100::Color::Default || cell.fgcolor() != cell.bgcolor();
                if seen && cell.has_contents() {
                    line.push_str(cell.contents());
                    all_inverse &= cell.inverse() || cell.contents() == " ";
                } else {
                    line.push(' ');
                }
            }
            let line = line.trim_end().to_owned();
            reversed.push(!line.trim().is_empty() && all_inverse);
            shown.push(line);
        }
        Screen {
            rows: shown,
            reversed,
        }
    }

    /// The visible text, rows joined by line breaks.
    pub fn text(&self) -> String {
        self.rows.join("\n")
    }
}
