//! Line and column for JSON pointers. serde_json gives positions only for syntax errors, so
//! for the diagnostics found afterwards this scanner walks the (already valid) text once and
//! records where each member key and array element starts.

use std::collections::HashMap;

use crate::diagnostic::Diagnostics;

/// Fills in line and column for every diagnostic that has a JSON pointer but no line.
pub(crate) fn add_lines(mut diagnostics: Diagnostics, text: &str) -> Diagnostics {
    let needs = |d: &crate::Diagnostic| d.origin.line.is_none() && d.origin.pointer.is_some();
    if !diagnostics.iter().any(needs) {
        return diagnostics;
    }
    let offsets = pointer_offsets(text);
    for d in diagnostics.0.iter_mut().filter(|d| needs(d)) {
        // A key that is missing points below the object that lacks it: use the object.
        let mut pointer = d.origin.pointer.clone().unwrap_or_default();
        while !offsets.contains_key(&pointer) && !pointer.is_empty() {
            pointer.truncate(pointer.rfind('/').unwrap_or(0));
        }
        if let Some(&offset) = offsets.get(&pointer) {
            let (line, column) = line_column(text, offset);
            d.origin.line = Some(line);
            d.origin.column = Some(column);
        }
    }
    diagnostics
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// Byte offset of every value, by JSON pointer: the key's opening quote for object members,
/// the value's first byte for array elements and the root.
fn pointer_offsets(text: &str) -> HashMap<String, usize> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        pos: 0,
        offsets: HashMap::new(),
    };
    scanner.skip_ws();
    scanner.offsets.insert(String::new(), scanner.pos);
    scanner.value(String::new(), 0);
    scanner.offsets
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    offsets: HashMap<String, usize>,
}

/// serde_json refuses deeper documents before this runs; the bound keeps the recursion
/// safe even if the two ever disagree.
const MAX_DEPTH: usize = 200;

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, pointer: String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                loop {
                    self.skip_ws();
                    match self.peek() {
                        Some(b'"') => {
                            let at = self.pos;
                            let key = self.string();
                            let child = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                            self.offsets.insert(child.clone(), at);
                            self.skip_ws();
                            if self.peek() == Some(b':') {
                                self.pos += 1;
                            }
                            self.value(child, depth + 1);
                        }
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return;
                        }
                        _ => return,
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut index = 0usize;
                loop {
                    self.skip_ws();
                    match self.peek() {
                        Some(b']') => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => {
                            self.pos += 1;
                            index += 1;
                        }
                        Some(_) => {
                            let child = format!("{pointer}/{index}");
                            self.offsets.insert(child.clone(), self.pos);
                            let before = self.pos;
                            self.value(child, depth + 1);
                            if self.pos == before {
                                return;
                            }
                        }
                        None => return,
                    }
                }
            }
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                while matches!(self.peek(), Some(c) if !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.pos += 1;
                }
            }
            None => {}
        }
    }

    /// Reads a string starting at its opening quote and returns its decoded text.
    fn string(&mut self) -> String {
        let start = self.pos;
        self.pos += 1;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'\\' => self.pos += 1,
                b'"' => break,
                _ => {}
            }
        }
        let raw = &self.bytes[start..self.pos.min(self.bytes.len())];
        serde_json::from_slice(raw).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_elements() {
        let text = "{\n  \"a\": [1, {\"b/c\": true}],\n  \"d\": \"x\\\"y\"\n}";
        let offsets = pointer_offsets(text);
        let at = |p: &str| line_column(text, offsets[p]);
        assert_eq!(at(""), (1, 1));
        assert_eq!(at("/a"), (2, 3));
        assert_eq!(at("/a/0"), (2, 9));
        assert_eq!(at("/a/1"), (2, 12));
        assert_eq!(at("/a/1/b~1c"), (2, 13));
        assert_eq!(at("/d"), (3, 3));
    }

    #[test]
    fn columns_count_characters() {
        let text = "{\"é\": 1, \"k\": 2}";
        let offsets = pointer_offsets(text);
        assert_eq!(line_column(text, offsets["/k"]), (1, 10));
    }
}
