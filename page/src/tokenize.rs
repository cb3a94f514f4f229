//! Stage 1: the HTML as a stream of start and end tags, read by a WHATWG
//! tokenizer (`html5gum`): comments, CDATA, any attribute order and
//! quoting, case, character references in attribute values and invalid
//! UTF-8 are handled by it, never by a pattern over the bytes.
//!
//! The tokenizer's state after a start tag (raw text after `<script>`,
//! `<style>`, …) is a tree builder's decision. This stage makes it as the
//! WHATWG tree builder does for the one thing that matters here, whether
//! the tag is HTML or foreign (SVG, MathML) content: it keeps the open
//! SVG/MathML elements (13.2.6.5, "in foreign content"), so `<svg><script>`
//! is not raw text and a `<meta>` inside it is read, as browsers do.
//!
//! Only what the later stages read is kept, and only for the tag being read:
//! the tag name, its span and the first `name`, `content` and `class`
//! attributes. No tree is built. (The tokenizer itself buffers the token it
//! is reading: a tag, a comment or a run of text.)

use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Emitter, ForwardingEmitter, Span, State, Tokenizer};
use std::cell::Cell;
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
    /// An SVG or MathML element (where a self-closing start tag is the
    /// whole element, WHATWG 13.1.2.1).
    pub foreign: bool,
    /// The first `name`, `content` and `class` attributes, character
    /// references decoded (WHATWG: a repeated attribute is ignored).
    pub attr_name: Option<Vec<u8>>,
    pub content: Option<Vec<u8>>,
    pub class: Option<Vec<u8>>,
    /// The first `encoding` attribute (MathML `annotation-xml`), lower-case.
    encoding: Option<Vec<u8>>,
    /// Has a `color`, `face` or `size` attribute (a `<font>` with one ends
    /// foreign content).
    font_attr: bool,
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

/// What the scan read.
pub(crate) struct Scanned {
    /// Bytes the tokenizer had read when it stopped (the whole input if
    /// never stopped).
    pub read: usize,
    /// Foreign elements nested deeper than [`MAX_FOREIGN_DEPTH`] were
    /// read: past it, where HTML content resumes is approximated.
    pub foreign_capped: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Attr {
    Name,
    Content,
    Class,
    Encoding,
    Other,
}

/// Open SVG/MathML elements kept at most (Blink's parser nests elements
/// 512 deep at most too); deeper ones are counted, not named.
pub(crate) const MAX_FOREIGN_DEPTH: usize = 512;

/// Bytes of an open foreign element's name kept for matching its end tag
/// (with the name's length): a hostile name costs no more.
const NAME_KEPT: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ns {
    Svg,
    Math,
}

/// What an open foreign element is for the tree builder's dispatch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Point {
    /// Foreign content: start tags are foreign, but for the break-out ones.
    None,
    /// An HTML integration point (SVG `foreignObject`, `desc`, `title`;
    /// MathML `annotation-xml` with an HTML encoding): start tags are HTML.
    Html,
    /// A MathML text integration point (`mi`, `mo`, `mn`, `ms`, `mtext`):
    /// start tags but `mglyph` and `malignmark` are HTML.
    MathText,
    /// MathML `annotation-xml` without an HTML encoding: `<svg>` is HTML's.
    AnnotationXml,
}

struct Frame {
    ns: Ns,
    point: Point,
    name: [u8; NAME_KEPT],
    name_len: usize,
    /// HTML elements open inside this integration point (counted, not
    /// named): while any is, end tags are HTML's.
    html_open: usize,
}

impl Frame {
    fn new(ns: Ns, point: Point, name: &[u8]) -> Frame {
        let mut kept = [0; NAME_KEPT];
        let n = name.len().min(NAME_KEPT);
        kept[..n].copy_from_slice(&name[..n]);
        Frame {
            ns,
            point,
            name: kept,
            name_len: name.len(),
            html_open: 0,
        }
    }

    fn is(&self, name: &[u8]) -> bool {
        let n = name.len().min(NAME_KEPT);
        self.name_len == name.len() && self.name[..n] == name[..n]
    }
}

/// HTML start tags that end foreign content (WHATWG 13.2.6.5; `font` only
/// with `color`, `face` or `size`).
#[rustfmt::skip]
const BREAKOUT: &[&[u8]] = &[
    b"b", b"big", b"blockquote", b"body", b"br", b"center", b"code", b"dd", b"div", b"dl",
    b"dt", b"em", b"embed", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6", b"head", b"hr", b"i",
    b"img", b"li", b"listing", b"menu", b"meta", b"nobr", b"ol", b"p", b"pre", b"ruby",
    b"s", b"small", b"span", b"strong", b"strike", b"sub", b"sup", b"table", b"tt", b"u",
    b"ul", b"var",
];

/// HTML void elements (no end tag, so never an open element to count).
#[rustfmt::skip]
const VOID: &[&[u8]] = &[
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
    b"source", b"track", b"wbr", b"param", b"keygen", b"basefont", b"bgsound", b"frame",
    b"image",
];

/// The tokenizer state after an HTML start tag (WHATWG 13.2.6.4.7 and
/// 13.2.6.4.4: the elements the tree builder parses as raw text or RCDATA;
/// `noscript` as with scripting on, as Google renders).
fn html_next_state(name: &[u8]) -> Option<State> {
    match name {
        b"textarea" | b"title" => Some(State::RcData),
        b"plaintext" => Some(State::PlainText),
        b"script" => Some(State::ScriptData),
        b"style" | b"iframe" | b"xmp" | b"noembed" | b"noframes" | b"noscript" => {
            Some(State::RawText)
        }
        _ => None,
    }
}

/// The open SVG/MathML elements, as the tree builder's stack holds them.
#[derive(Default)]
struct Foreign {
    stack: Vec<Frame>,
    /// Foreign elements open past [`MAX_FOREIGN_DEPTH`].
    deeper: usize,
    capped: bool,
}

impl Foreign {
    /// Whether a start tag goes to HTML's rules (no foreign element open,
    /// or an integration point that takes it).
    fn html_takes(&self, name: &[u8]) -> bool {
        if self.deeper > 0 {
            return false;
        }
        match self.stack.last().map(|f| f.point) {
            None | Some(Point::Html) => true,
            Some(Point::MathText) => name != b"mglyph" && name != b"malignmark",
            Some(Point::AnnotationXml) => name == b"svg",
            Some(Point::None) => false,
        }
    }

    fn push(&mut self, frame: Frame) {
        if self.stack.len() < MAX_FOREIGN_DEPTH {
            self.stack.push(frame);
        } else {
            self.deeper += 1;
            self.capped = true;
        }
    }

    /// A start tag: whether the element is foreign, and the tokenizer's
    /// next state.
    fn start(&mut self, tag: &StartTag) -> (bool, Option<State>) {
        let name = &tag.name[..];
        loop {
            if self.html_takes(name) {
                let ns = match name {
                    b"svg" => Ns::Svg,
                    b"math" => Ns::Math,
                    _ => {
                        if let Some(top) = self.stack.last_mut() {
                            if !VOID.contains(&name) && html_next_state(name).is_none() {
                                top.html_open += 1;
                            }
                        }
                        return (false, html_next_state(name));
                    }
                };
                if !tag.self_closing {
                    self.push(Frame::new(ns, Point::None, name));
                }
                return (true, None);
            }
            let breakout = BREAKOUT.contains(&name) || (name == b"font" && tag.font_attr);
            if breakout && self.deeper == 0 {
                // Pop to an integration point or HTML, then the tag is
                // HTML's (reprocessed).
                self.pop_to_html();
                continue;
            }
            if breakout {
                // Past the depth kept: the elements below are not known,
                // so all foreign content ends (said by `capped`).
                self.deeper = 0;
                self.stack.clear();
                continue;
            }
            let ns = self.stack.last().map_or(Ns::Svg, |f| f.ns);
            let point = match (ns, name) {
                (Ns::Svg, b"foreignobject" | b"desc" | b"title") => Point::Html,
                (Ns::Math, b"mi" | b"mo" | b"mn" | b"ms" | b"mtext") => Point::MathText,
                (Ns::Math, b"annotation-xml") => match tag.encoding.as_deref() {
                    Some(b"text/html" | b"application/xhtml+xml") => Point::Html,
                    _ => Point::AnnotationXml,
                },
                _ => Point::None,
            };
            if !tag.self_closing {
                self.push(Frame::new(ns, point, name));
            }
            return (true, None);
        }
    }

    /// Pops the foreign elements that are not integration points: what
    /// remains open is HTML or an integration point (WHATWG 13.2.6.5's
    /// breakout, and `</br>` / `</p>` in foreign content).
    fn pop_to_html(&mut self) {
        while self
            .stack
            .last()
            .is_some_and(|f| matches!(f.point, Point::None | Point::AnnotationXml))
        {
            self.stack.pop();
        }
    }

    /// An end tag.
    fn end(&mut self, name: &[u8]) {
        if self.deeper > 0 {
            self.deeper -= 1;
            return;
        }
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        if top.html_open > 0 {
            // An HTML element inside an integration point is current: the
            // end tag is HTML's (a foreign element's name is ignored there,
            // as the tree builder's "any other end tag" does at a special
            // element).
            if !self.stack.iter().any(|f| f.is(name)) {
                if let Some(top) = self.stack.last_mut() {
                    top.html_open -= 1;
                }
            }
            return;
        }
        if (name == b"br" || name == b"p") && top.point == Point::None {
            self.pop_to_html();
            return;
        }
        // 13.2.6.5 "any other end tag": the innermost open foreign element
        // of that name ends, with those inside it; none: ignored (robocc
        // does not know the HTML elements around the `<svg>`).
        if let Some(i) = self.stack.iter().rposition(|f| f.is(name)) {
            self.stack.truncate(i);
        }
    }
}

/// The tokenizer's emitter: html5gum's callback emitter, with the state
/// switch after a start tag decided by [`Foreign`] (set in `next`).
struct Switching<'c, F: html5gum::emitters::callback::Callback<usize, usize>> {
    inner: CallbackEmitter<F, usize, usize>,
    next: &'c Cell<Option<State>>,
}

impl<F: html5gum::emitters::callback::Callback<usize, usize>> ForwardingEmitter
    for Switching<'_, F>
{
    type Token = usize;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.inner
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        // The callback has seen the tag (and set `next`) by now.
        let _ = self.inner.emit_current_tag();
        self.next.take()
    }
}

/// Reads `html` once, calling `visit` for each start and end tag in order;
/// `visit` stops the scan by returning `Break`.
pub(crate) fn scan(html: &[u8], mut visit: impl FnMut(Event<'_>) -> ControlFlow<()>) -> Scanned {
    let mut tag = StartTag::default();
    let mut in_start = false;
    let mut attr = Attr::Other;
    let mut seen = [false; 4];
    let mut foreign = Foreign::default();
    let mut stopped: Option<usize> = None;
    let next: Cell<Option<State>> = Cell::new(None);
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
                    tag.encoding = None;
                    tag.font_attr = false;
                    seen = [false; 4];
                    attr = Attr::Other;
                }
                CallbackEvent::AttributeName { name } if in_start => {
                    let (a, i) = match name {
                        b"name" => (Attr::Name, 0),
                        b"content" => (Attr::Content, 1),
                        b"class" => (Attr::Class, 2),
                        b"encoding" => (Attr::Encoding, 3),
                        b"color" | b"face" | b"size" => {
                            tag.font_attr = true;
                            (Attr::Other, 4)
                        }
                        _ => (Attr::Other, 4),
                    };
                    attr = Attr::Other;
                    if i < 4 && !seen[i] {
                        seen[i] = true;
                        attr = a;
                        // An attribute without a value is the empty string.
                        *slot(&mut tag, a) = Some(Vec::new());
                    }
                }
                CallbackEvent::AttributeValue { value } if in_start => {
                    let a = std::mem::replace(&mut attr, Attr::Other);
                    if a == Attr::Other {
                        return None;
                    }
                    if let Some(v) = slot(&mut tag, a) {
                        if a != Attr::Encoding {
                            v.extend_from_slice(value);
                        } else if value.len() <= NAME_KEPT {
                            // Only compared, ASCII case ignored: a huge
                            // one matches nothing and is not kept.
                            v.extend(value.iter().map(u8::to_ascii_lowercase));
                        }
                    }
                }
                CallbackEvent::CloseStartTag { self_closing } if in_start => {
                    in_start = false;
                    tag.self_closing = self_closing;
                    tag.end = span.end;
                    let (is_foreign, state) = foreign.start(&tag);
                    tag.foreign = is_foreign;
                    next.set(state);
                    if visit(Event::Start(&tag)).is_break() {
                        return Some(span.end);
                    }
                }
                CallbackEvent::EndTag { name } => {
                    in_start = false;
                    foreign.end(name);
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
        let emitter = Switching {
            inner: CallbackEmitter::new(callback),
            next: &next,
        };
        // The reader of a byte slice never fails: a token is a stop.
        if let Some(Ok(at)) = Tokenizer::new_with_emitter(html, emitter).next() {
            stopped = Some(at);
        }
    }
    Scanned {
        read: stopped.unwrap_or(html.len()).min(html.len()),
        foreign_capped: foreign.capped,
    }
}

fn slot(tag: &mut StartTag, a: Attr) -> &mut Option<Vec<u8>> {
    match a {
        Attr::Name => &mut tag.attr_name,
        Attr::Content => &mut tag.content,
        Attr::Class => &mut tag.class,
        _ => &mut tag.encoding,
    }
}
