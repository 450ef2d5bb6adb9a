//! A server-sent events reader: bytes in, whole events out, whatever the chunk boundaries
//! (mid-line, mid-character).
//!
//! As the event-stream format defines it: lines end with LF, CRLF or CR; a blank line ends an
//! event; `event:` names it (default `message`), `data:` lines are joined with LF; comments
//! (`:` lines), `id:` and `retry:` are ignored; one space after the colon is dropped. An event
//! left without its blank line when the body ends is still delivered.

/// One event: its name and its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) name: String,
    pub(crate) data: String,
}

/// Splits a byte stream into [`SseEvent`]s.
#[derive(Debug, Default)]
pub(crate) struct SseReader {
    /// Bytes of a line not yet ended.
    line: Vec<u8>,
    /// The last byte seen was a CR, so an LF right after it ends nothing.
    after_cr: bool,
    name: String,
    data: String,
    has_data: bool,
}

impl SseReader {
    /// Feeds `chunk`; pushes every event it completes onto `out`. Fails on a line that is not
    /// UTF-8.
    pub(crate) fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        let mut rest = chunk;
        while !rest.is_empty() {
            if self.after_cr && rest[0] == b'\n' {
                rest = &rest[1..];
            }
            self.after_cr = false;
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.line.extend_from_slice(&rest[..end]);
                    self.after_cr = rest[end] == b'\r';
                    rest = &rest[end + 1..];
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out)?;
                }
                None => {
                    self.line.extend_from_slice(rest);
                    rest = &[];
                }
            }
        }
        Ok(())
    }

    /// The body ended: the event in progress, if any, is delivered.
    pub(crate) fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), String> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, out)?;
        }
        self.dispatch(out);
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let line = std::str::from_utf8(line)
            .map_err(|e| format!("an event-stream line is not UTF-8 ({e})"))?;
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.name),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let name = std::mem::take(&mut self.name);
        if !self.has_data {
            return;
        }
        self.has_data = false;
        out.push(SseEvent {
            name: if name.is_empty() {
                "message".to_owned()
            } else {
                name
            },
            data: std::mem::take(&mut self.data),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_in_pieces(bytes: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut reader = SseReader::default();
        let mut out = Vec::new();
        for chunk in bytes.chunks(piece) {
            reader.feed(chunk, &mut out).unwrap();
        }
        reader.finish(&mut out).unwrap();
        out
    }

    #[test]
    fn events_survive_any_chunk_boundary() {
        let body = "event: message_start\ndata: {\"a\":\"h\u{e9}llo \u{1F600}\"}\n\n: a comment\n\
                    event: ping\r\ndata: {}\r\n\r\ndata: one\ndata:two\nid: 7\n\n\
                    data: [DONE]\r\r";
        let expected = vec![
            SseEvent {
                name: "message_start".into(),
                data: "{\"a\":\"h\u{e9}llo \u{1F600}\"}".into(),
            },
            SseEvent {
                name: "ping".into(),
                data: "{}".into(),
            },
            SseEvent {
                name: "message".into(),
                data: "one\ntwo".into(),
            },
            SseEvent {
                name: "message".into(),
                data: "[DONE]".into(),
            },
        ];
        for piece in 1..=body.len() {
            assert_eq!(read_in_pieces(body.as_bytes(), piece), expected, "{piece}");
        }
    }

    #[test]
    fn an_unterminated_last_event_is_delivered_and_empty_events_are_not() {
        let out = read_in_pieces(b"event: x\n\n\n\ndata: last", 3);
        assert_eq!(
            out,
            vec![SseEvent {
                name: "message".into(),
                data: "last".into()
            }]
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error() {
        let mut reader = SseReader::default();
        let error = reader
            .feed(b"data: \xff\xfe\n\n", &mut Vec::new())
            .unwrap_err();
        assert!(error.contains("not UTF-8"), "{error}");
    }
}
