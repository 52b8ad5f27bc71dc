//! Joins REPL lines into complete inputs: an input continues while brackets are open (outside
//! strings and comments), inside a triple-quoted string, or after a line ending in `\`.
//! Commands other than `%let` are always one line.

/// Accumulates lines until an input is complete.
#[derive(Default)]
pub struct Accumulator {
    buffer: String,
}

impl Accumulator {
    /// Whether a partial input is waiting for more lines.
    pub fn is_pending(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// Adds a line; returns the complete input once it is one.
    pub fn feed(&mut self, line: &str) -> Option<String> {
        let command = line.trim_start();
        if self.buffer.is_empty() && command.starts_with('%') && !command.starts_with("%let") {
            return Some(line.to_string());
        }
        if let Some(head) = line.strip_suffix('\\') {
            self.buffer.push_str(head);
            self.buffer.push('\n');
            return None;
        }
        self.buffer.push_str(line);
        if is_open(&self.buffer) {
            self.buffer.push('\n');
            return None;
        }
        Some(std::mem::take(&mut self.buffer))
    }

    /// Ends the input early (end of file or Ctrl-C), returning what was gathered.
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.buffer)
    }
}

/// Whether brackets are still open or a triple-quoted string is unterminated.
fn is_open(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut depth = 0i64;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            q @ ('\'' | '"') => {
                let raw = i > 0 && matches!(chars[i - 1], 'r' | 'R');
                let triple = chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q);
                match string_end(&chars, i, q, raw, triple) {
                    Some(end) => i = end,
                    // An unterminated triple-quoted string continues; a plain one is an error
                    // for the parser to report.
                    None => return triple,
                }
            }
            _ => {}
        }
        i += 1;
    }
    depth > 0
}

/// The index of the last quote of the string starting at `start`, if it is terminated.
fn string_end(chars: &[char], start: usize, q: char, raw: bool, triple: bool) -> Option<usize> {
    let mut i = start + if triple { 3 } else { 1 };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && !raw {
            i += 2;
            continue;
        }
        if c == q {
            if !triple {
                return Some(i);
            }
            if chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                return Some(i + 2);
            }
        }
        if c == '\n' && !triple {
            return None;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_and_continuations() {
        let mut acc = Accumulator::default();
        assert_eq!(acc.feed("[1,"), None);
        assert_eq!(acc.feed(" 2]").as_deref(), Some("[1,\n 2]"));
        assert_eq!(acc.feed("1 +\\"), None);
        assert_eq!(acc.feed("2").as_deref(), Some("1 +\n2"));
        assert_eq!(
            acc.feed("'(' + \"[\" // {").as_deref(),
            Some("'(' + \"[\" // {")
        );
        assert_eq!(acc.feed("'''a"), None);
        assert_eq!(acc.feed("b'''").as_deref(), Some("'''a\nb'''"));
        assert_eq!(acc.feed("r'\\' + ')'").as_deref(), Some("r'\\' + ')'"));
        assert_eq!(acc.feed("1)").as_deref(), Some("1)"));
        assert_eq!(
            acc.feed("%declare x list(").as_deref(),
            Some("%declare x list(")
        );
        assert_eq!(acc.feed("%let x = [1,"), None);
        assert_eq!(acc.feed("2]").as_deref(), Some("%let x = [1,\n2]"));
    }
}
