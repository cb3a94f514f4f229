//! Stage 1: the HTML as a stream of start and end tags, read by a WHATWG
//! tokenizer (`html5gum`): comments, `<script>`/`<style>`/`<title>`/
//! `<textarea>` raw text, CDATA, any attribute order and quoting, case,
//! character references in attribute values and invalid UTF-8 are handled
//! by it, never by a pattern over the bytes.
//!
//! Only what the later stages read is kept, and only for the tag being read:
//! the tag name, its span and the first `name`, `content` and `class`
//! attributes. No tree is built. (The tokenizer itself buffers the token it
//! is reading: a tag, a comment or a run of text.)

use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Span, Tokenizer};
use std::ops::ControlFlow;

/// A start tag, as the later stages see it.
#[derive(Debug, Default)]
pub(crate) struct StartTag {
    /// Lower-case (the tokenizer lower-cases ASCII tag names).
    pub name: Vec<u8>,
    /// Byte offset of its `<`.
    pub start: usize,
    /// Byte offset just past its `>`.
    pub end: usize,
    pub self_closing: bool,
    /// The first `name`, `content` and `class` attributes, character
    /// references decoded (WHATWG: a repeated attribute is ignored).
    pub attr_name: Option<Vec<u8>>,
    pub content: Option<Vec<u8>>,
    pub class: Option<Vec<u8>>,
}

/// What the scan reports.
pub(crate) enum Event<'a> {
    Start(&'a StartTag),
    /// An end tag: its lower-case name, and the offset just past its `>`.
    End {
        name: &'a [u8],
        end: usize,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Attr {
    Name,
    Content,
    Class,
    Other,
}

/// Reads `html` once, calling `visit` for each start and end tag in order;
/// `visit` stops the scan by returning `Break`. Returns the number of bytes
/// the tokenizer had read when it stopped (the whole input if never
/// stopped).
pub(crate) fn scan(html: &[u8], mut visit: impl FnMut(Event<'_>) -> ControlFlow<()>) -> usize {
    let mut tag = StartTag::default();
    let mut in_start = false;
    let mut attr = Attr::Other;
    let mut seen = [false; 3];
    let mut stopped_at: Option<usize> = None;
    {
        let callback = |ev: CallbackEvent<'_>, span: Span<usize>| -> Option<usize> {
            match ev {
                CallbackEvent::OpenStartTag { name } => {
                    in_start = true;
                    tag.name.clear();
                    tag.name.extend_from_slice(name);
                    tag.start = span.start;
                    tag.attr_name = None;
                    tag.content = None;
                    tag.class = None;
                    seen = [false; 3];
                    attr = Attr::Other;
                }
                CallbackEvent::AttributeName { name } if in_start => {
                    let (a, i) = match name {
                        b"name" => (Attr::Name, 0),
                        b"content" => (Attr::Content, 1),
                        b"class" => (Attr::Class, 2),
                        _ => (Attr::Other, 3),
                    };
                    attr = Attr::Other;
                    if i < 3 && !seen[i] {
                        seen[i] = true;
                        attr = a;
                        // An attribute without a value is the empty string.
                        let slot = match a {
                            Attr::Name => &mut tag.attr_name,
                            Attr::Content => &mut tag.content,
                            _ => &mut tag.class,
                        };
                        *slot = Some(Vec::new());
                    }
                }
                CallbackEvent::AttributeValue { value } if in_start => {
                    let slot = match attr {
                        Attr::Name => &mut tag.attr_name,
                        Attr::Content => &mut tag.content,
                        Attr::Class => &mut tag.class,
                        Attr::Other => return None,
                    };
                    if let Some(v) = slot {
                        v.extend_from_slice(value);
                    }
                    attr = Attr::Other;
                }
                CallbackEvent::CloseStartTag { self_closing } if in_start => {
                    in_start = false;
                    tag.self_closing = self_closing;
                    tag.end = span.end;
                    if visit(Event::Start(&tag)).is_break() {
                        return Some(span.end);
                    }
                }
                CallbackEvent::EndTag { name } => {
                    in_start = false;
                    if visit(Event::End {
                        name,
                        end: span.end,
                    })
                    .is_break()
                    {
                        return Some(span.end);
                    }
                }
                CallbackEvent::String { .. }
                | CallbackEvent::Comment { .. }
                | CallbackEvent::Doctype { .. } => in_start = false,
                _ => {}
            }
            None
        };
        let mut emitter = CallbackEmitter::new(callback);
        // Raw text after <script>, <style>, <title>, <textarea>, …: the
        // switch a tree builder would make (html5gum's `naive_next_state`).
        emitter.naively_switch_states(true);
        // The reader of a byte slice never fails: a token is a stop.
        if let Some(Ok(at)) = Tokenizer::new_with_emitter(html, emitter).next() {
            stopped_at = Some(at);
        }
    }
    stopped_at.unwrap_or(html.len()).min(html.len())
}
