//! YAML read as Kubernetes reads it: go-yaml v2 (sigs.k8s.io/yaml's YAML library) decoding
//! into `interface{}` — libyaml's syntax (see `libyaml.rs`), go-yaml's resolution of plain
//! scalars (YAML 1.1 booleans `yes`/`no`/`on`/`off`/`y`/`n`, octal `017`, `0x`/`0o`/`0b`,
//! `1_000`, `.inf`/`.nan`, timestamps kept as strings), tags (`!!str`, `!!int`, `!!float`,
//! `!!binary`, ...), anchors and aliases (with go-yaml's limit on alias expansion), merge
//! keys `<<`, duplicate keys (the last wins; noted for strict decoding), and go-yaml's
//! depth limits and error texts.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::libyaml::{Event, Mark, Parser, SyntaxError};
use super::tree::{KUBERNETES_MAX_DEPTH, MAX_DEPTH, Node, go_quote, with_stack};
use super::{Duplicate, DuplicateKey};

/// What reading YAML can end with: go-yaml's error (its text, `yaml: ...`), or a document
/// nested deeper than this library holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum YamlError {
    Go(String),
    TooDeep,
}

/// The documents of a YAML stream (an empty document is `Null`), and the duplicate keys
/// go-yaml's strict mode reports (`line 3: key "a" already set in map`), with their paths.
pub(super) fn read_documents(text: &str) -> Result<(Vec<Node>, Vec<Duplicate>), YamlError> {
    let mut parser = Parser::new(text.as_bytes());
    let mut documents = Vec::new();
    let mut duplicates = Vec::new();
    loop {
        let (event, _) = parser.next_event().map_err(syntax_error)?;
        match event {
            Event::StreamStart | Event::DocumentEnd => {}
            Event::StreamEnd => break,
            Event::DocumentStart => {
                let arena = Arena::read(&mut parser, text)?;
                let mut decoder = Decoder {
                    arena: &arena,
                    decode_count: 0,
                    alias_count: 0,
                    alias_depth: 0,
                    expanding: Vec::new(),
                    duplicates: &mut duplicates,
                    document: documents.len(),
                    path: Vec::new(),
                };
                documents.push(decoder.decode(arena.root, 0)?);
            }
            // Nodes only come inside documents.
            _ => return Err(YamlError::Go("yaml: unexpected event".into())),
        }
    }
    Ok((documents, duplicates))
}

/// The text go-yaml v2 gives a libyaml syntax error (`parser.fail()`): the problem's line,
/// 1-based for scanner errors and as libyaml counts it (0-based) for parser errors, or the
/// context's line, or none when both are on the first line.
fn syntax_error(e: SyntaxError) -> YamlError {
    let line = if e.problem_mark.line != 0 {
        e.problem_mark.line + u64::from(e.scanner)
    } else {
        e.context_mark.line
    };
    let problem = if e.problem.is_empty() {
        "unknown problem parsing YAML content".to_string()
    } else {
        e.problem
    };
    YamlError::Go(if line != 0 {
        format!("yaml: line {line}: {problem}")
    } else {
        format!("yaml: {problem}")
    })
}

/// A node as parsed, before decoding (go-yaml's `node`).
enum Raw {
    Scalar {
        tag: Option<String>,
        value: String,
        implicit: bool,
    },
    Seq(Vec<usize>),
    Map(Vec<usize>),
    Alias {
        anchor: String,
        target: usize,
    },
}

struct RawNode {
    raw: Raw,
    line: u64,
}

/// One document's nodes; collections refer to their children, aliases to their anchors'
/// nodes.
struct Arena {
    nodes: Vec<RawNode>,
    root: usize,
}

impl Arena {
    /// Reads one document's node events (after its DocumentStart) from `text`, without
    /// recursion.
    fn read(parser: &mut Parser, text: &str) -> Result<Arena, YamlError> {
        let mut nodes: Vec<RawNode> = Vec::new();
        let mut anchors: HashMap<String, usize> = HashMap::new();
        let mut open: Vec<(usize, bool)> = Vec::new();
        let (mut flow_depth, mut block_depth) = (0usize, 0usize);
        // Where the flow content counted by `deeper_flow` ends (not counted again).
        let mut scanned_to = 0usize;
        let mut root = None;
        loop {
            let (event, mark) = parser.next_event().map_err(syntax_error)?;
            let new = match event {
                Event::Scalar {
                    anchor,
                    tag,
                    value,
                    plain_implicit,
                } => Some((
                    anchor,
                    Raw::Scalar {
                        tag,
                        value,
                        implicit: plain_implicit,
                    },
                    None,
                )),
                Event::Alias { anchor } => {
                    let Some(&target) = anchors.get(&anchor) else {
                        return Err(YamlError::Go(format!(
                            "yaml: unknown anchor '{anchor}' referenced"
                        )));
                    };
                    Some((None, Raw::Alias { anchor, target }, None))
                }
                Event::SequenceStart { anchor, flow } => {
                    Some((anchor, Raw::Seq(Vec::new()), Some(flow)))
                }
                Event::MappingStart { anchor, flow } => {
                    Some((anchor, Raw::Map(Vec::new()), Some(flow)))
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    if let Some((_, flow)) = open.pop() {
                        if flow {
                            flow_depth -= 1;
                        } else {
                            block_depth -= 1;
                        }
                    }
                    None
                }
                Event::DocumentEnd => break,
                Event::StreamStart | Event::StreamEnd | Event::DocumentStart => {
                    return Err(YamlError::Go("yaml: unexpected event".into()));
                }
            };
            let Some((anchor, raw, collection)) = new else {
                continue;
            };
            let index = nodes.len();
            nodes.push(RawNode {
                raw,
                line: mark.line,
            });
            if let Some(anchor) = anchor {
                anchors.insert(anchor, index);
            }
            match open.last() {
                Some(&(parent, _)) => match &mut nodes[parent].raw {
                    Raw::Seq(children) | Raw::Map(children) => children.push(index),
                    _ => {}
                },
                None => root = Some(index),
            }
            if let Some(flow) = collection {
                let depth = if flow {
                    &mut flow_depth
                } else {
                    &mut block_depth
                };
                *depth += 1;
                if *depth > KUBERNETES_MAX_DEPTH {
                    return Err(depth_error(flow, mark));
                }
                if flow && *depth > FLOW_SCAN_DEPTH && flow_offset(text, mark) >= scanned_to {
                    // libyaml's scanner takes time quadratic in the flow depth (its
                    // simple-key list): the rest of this flow collection is counted first,
                    // so that nesting Kubernetes refuses (or this library does not hold) is
                    // refused without parsing it.
                    scanned_to = deeper_flow(text, mark, *depth)?;
                }
                open.push((index, flow));
            }
        }
        let root = root.unwrap_or_else(|| {
            nodes.push(RawNode {
                raw: Raw::Scalar {
                    tag: None,
                    value: String::new(),
                    implicit: true,
                },
                line: 0,
            });
            nodes.len() - 1
        });
        Ok(Arena { nodes, root })
    }
}

/// Flow depth past which the rest of a flow collection is counted before it is parsed
/// (see [`deeper_flow`]).
pub(super) const FLOW_SCAN_DEPTH: usize = 1_000;

/// The byte offset of an event's mark in `text` (libyaml does not count a byte order mark).
fn flow_offset(text: &str, mark: Mark) -> usize {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    usize::try_from(mark.index).map_or(text.len(), |i| i.saturating_add(bom))
}

/// Counts, without parsing, the rest of the flow collections around one opened at `mark`
/// at flow depth `depth` (past [`FLOW_SCAN_DEPTH`]): go-yaml's depth error where the flow
/// nesting goes past [`KUBERNETES_MAX_DEPTH`] before they close, [`YamlError::TooDeep`]
/// where it goes past [`MAX_DEPTH`] (the browser module's lower limit), else the offset
/// where the count ended (the outermost collection closed, or the text ended), up to which
/// the text need not be counted again. The count is [`scan_flow`], linear in the text.
fn deeper_flow(text: &str, mark: Mark, depth: usize) -> Result<usize, YamlError> {
    // The event starts at its collection's bracket, or at an anchor or tag before it.
    let from = flow_offset(text, mark);
    let Some(start) = text
        .as_bytes()
        .get(from..)
        .and_then(|rest| rest.iter().position(|c| matches!(c, b'[' | b'{')))
        .map(|at| from + at + 1)
    else {
        return Ok(text.len());
    };
    let scan = scan_flow(text.as_bytes(), start, depth, KUBERNETES_MAX_DEPTH);
    if let Some(at) = scan.past {
        return Err(depth_error(
            true,
            Mark {
                line: libyaml_line(&text[..at]),
                column: 0,
                index: at as u64,
            },
        ));
    }
    if scan.deepest > MAX_DEPTH {
        return Err(YamlError::TooDeep);
    }
    Ok(scan.end)
}

/// What [`scan_flow`] found.
struct FlowScan {
    /// The offset of the opening bracket that took the depth past the limit.
    past: Option<usize>,
    /// The greatest flow depth met.
    deepest: usize,
    /// Where the count stopped: after the bracket that closed the outermost collection, or
    /// the end of the text.
    end: usize,
}

/// Scans flow content from `start` at flow depth `depth` until the flow collections close,
/// the depth goes past `limit`, or the text ends. Quoted scalars and comments are skipped;
/// elsewhere in flow context every `[` and `{` opens a collection and every `]` and `}`
/// closes one (plain scalars cannot hold them there).
fn scan_flow(text: &[u8], start: usize, mut depth: usize, limit: usize) -> FlowScan {
    let mut deepest = depth;
    let mut i = start;
    // Whether a quote here starts a quoted scalar (at the start of a token).
    let mut token_start = true;
    while i < text.len() {
        let c = text[i];
        match c {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                if depth > limit {
                    return FlowScan {
                        past: Some(i),
                        deepest,
                        end: i,
                    };
                }
            }
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return FlowScan {
                        past: None,
                        deepest,
                        end: i + 1,
                    };
                }
            }
            b'"' if token_start => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if token_start => {
                i += 1;
                while i < text.len() {
                    if text[i] == b'\'' {
                        if text.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    i += 1;
                }
            }
            b'#' if token_start => {
                while i < text.len() && !matches!(text[i], b'\n' | b'\r') {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        token_start = matches!(
            c,
            b'[' | b'{' | b',' | b':' | b'?' | b' ' | b'\t' | b'\n' | b'\r'
        );
        i += 1;
    }
    FlowScan {
        past: None,
        deepest,
        end: text.len(),
    }
}

/// The 0-based line libyaml counts at the end of `text` (breaks: CR LF, CR, LF, NEL, LS, PS).
fn libyaml_line(text: &str) -> u64 {
    let mut line = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                line += 1;
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => line += 1,
            _ => {}
        }
    }
    line
}

/// go-yaml's scanner error for nesting beyond `max_flow_level` / `max_indents` (10,000).
fn depth_error(_flow: bool, mark: Mark) -> YamlError {
    syntax_error(SyntaxError {
        problem: format!("exceeded max depth of {KUBERNETES_MAX_DEPTH}"),
        problem_mark: mark,
        context_mark: mark,
        scanner: true,
    })
}

/// go-yaml v2's decoder state (`decoder`): the counts behind its limit on alias expansion.
struct Decoder<'a> {
    arena: &'a Arena,
    decode_count: u64,
    alias_count: u64,
    alias_depth: u32,
    /// Aliases being expanded (an anchor whose value contains itself is an error).
    expanding: Vec<usize>,
    duplicates: &'a mut Vec<Duplicate>,
    /// Which document of the stream is decoded.
    document: usize,
    /// Where the decoder is: the list indices and the arena nodes of the map keys.
    path: Vec<Segment>,
}

/// A step of the path to the node being decoded.
enum Segment {
    Index(usize),
    Key(usize),
}

/// go-yaml v2's `allowedAliasRatio`: how much of a document may come from alias expansion,
/// 99% for small documents down to 10% for very large ones.
fn allowed_alias_ratio(decode_count: u64) -> f64 {
    const LOW: u64 = 400_000;
    const HIGH: u64 = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

/// A map key's identity as a Go map of `interface{}` keys compares them (NaN equals
/// nothing, -0 equals 0).
#[derive(PartialEq, Eq, Hash)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    Str(String),
}

fn key_id(key: &Node) -> Option<KeyId> {
    Some(match key {
        Node::Null => KeyId::Null,
        Node::Bool(b) => KeyId::Bool(*b),
        Node::Int(i) => KeyId::Int(*i),
        Node::Uint(u) => KeyId::Uint(*u),
        Node::Float(f) if f.is_nan() => return None,
        Node::Float(f) => KeyId::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
        Node::Str(s) => KeyId::Str(s.clone()),
        Node::Seq(_) | Node::Map(_) => return None,
    })
}

/// A mapping being decoded: pairs in order, a later value for a key replacing the earlier.
#[derive(Default)]
struct MapBuilder {
    pairs: Vec<(Node, Node)>,
    index: HashMap<KeyId, usize>,
}

impl<'a> Decoder<'a> {
    fn decode(&mut self, index: usize, depth: usize) -> Result<Node, YamlError> {
        with_stack(|| self.decode_node(index, depth))
    }

    fn decode_node(&mut self, index: usize, depth: usize) -> Result<Node, YamlError> {
        self.count()?;
        if depth > MAX_DEPTH {
            return Err(YamlError::TooDeep);
        }
        let node = &self.arena.nodes[index];
        match &node.raw {
            Raw::Scalar {
                tag,
                value,
                implicit,
            } => decode_scalar(tag.as_deref(), value, *implicit),
            Raw::Alias { anchor, target } => {
                let target = *target;
                if self.expanding.contains(&index) {
                    return Err(YamlError::Go(format!(
                        "yaml: anchor '{anchor}' value contains itself"
                    )));
                }
                self.expanding.push(index);
                self.alias_depth += 1;
                let value = self.decode(target, depth);
                self.alias_depth -= 1;
                self.expanding.pop();
                value
            }
            Raw::Seq(children) => {
                let mut items = Vec::with_capacity(children.len());
                for (i, &child) in children.iter().enumerate() {
                    self.path.push(Segment::Index(i));
                    let item = self.decode(child, depth + 1);
                    self.path.pop();
                    items.push(item?);
                }
                Ok(Node::Seq(items))
            }
            Raw::Map(_) => {
                let mut map = MapBuilder::default();
                self.decode_mapping(index, &mut map, depth)?;
                Ok(Node::Map(map.pairs))
            }
        }
    }

    /// go-yaml's `unmarshal` bookkeeping: every node decoded counts, those under an alias
    /// count as expansion; too large a share of expansion is an error.
    fn count(&mut self) -> Result<(), YamlError> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(YamlError::Go(
                "yaml: document contains excessive aliasing".into(),
            ));
        }
        Ok(())
    }

    /// Decodes the mapping node `index` (through aliases) into `map`, merge keys first where
    /// they stand (go-yaml v2's `mapping`: a merged key is set when the `<<` is met, and a
    /// later key replaces it).
    fn decode_mapping(
        &mut self,
        index: usize,
        map: &mut MapBuilder,
        depth: usize,
    ) -> Result<(), YamlError> {
        let Raw::Map(children) = &self.arena.nodes[index].raw else {
            return Err(merge_error());
        };
        for pair in children.chunks(2) {
            let [key, value] = *pair else { continue };
            if self.is_merge(key) {
                self.merge(value, map, depth)?;
                continue;
            }
            let k = self.decode(key, depth + 1)?;
            if matches!(k, Node::Seq(_) | Node::Map(_)) {
                return Err(YamlError::Go(format!(
                    "yaml: invalid map key: {}",
                    k.go_syntax()
                )));
            }
            self.path.push(Segment::Key(key));
            let v = self.decode(value, depth + 1);
            self.path.pop();
            let v = v?;
            match key_id(&k).and_then(|id| map.index.get(&id).copied()) {
                Some(existing) => {
                    let error = DuplicateKey::Yaml {
                        line: self.arena.nodes[value].line + 1,
                        key: go_key(&k),
                    };
                    self.duplicates.push(Duplicate {
                        document: self.document,
                        path: self.strict_path(key),
                        error,
                    });
                    map.pairs[existing].1 = v;
                }
                None => {
                    if let Some(id) = key_id(&k) {
                        map.index.insert(id, map.pairs.len());
                    }
                    map.pairs.push((k, v));
                }
            }
        }
        Ok(())
    }

    /// The path of the key node `key` of the map being decoded, in strict decoding's form
    /// (`spec.ports[0].name`; keys by their text).
    fn strict_path(&self, key: usize) -> String {
        let mut path = String::new();
        let key_text = |index: usize| match &self.arena.nodes[index].raw {
            Raw::Scalar { value, .. } => value.clone(),
            _ => "?".to_owned(),
        };
        for segment in self.path.iter().chain([&Segment::Key(key)]) {
            match segment {
                Segment::Index(i) => path.push_str(&format!("[{i}]")),
                Segment::Key(k) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&key_text(*k));
                }
            }
        }
        path
    }

    /// go-yaml's `isMerge`: a plain `<<` (or one tagged `!!merge`).
    fn is_merge(&self, index: usize) -> bool {
        match &self.arena.nodes[index].raw {
            Raw::Scalar {
                tag,
                value,
                implicit,
            } => value == "<<" && (*implicit || tag.as_deref() == Some("tag:yaml.org,2002:merge")),
            _ => false,
        }
    }

    /// go-yaml v2's `merge`: a mapping, an alias of one, or a sequence of those (the later
    /// ones first, so that earlier ones win).
    fn merge(&mut self, index: usize, map: &mut MapBuilder, depth: usize) -> Result<(), YamlError> {
        match &self.arena.nodes[index].raw {
            Raw::Map(_) => {
                self.count()?;
                self.decode_mapping(index, map, depth)
            }
            Raw::Alias { target, .. } => self.merge_alias(index, *target, map, depth),
            Raw::Seq(children) => {
                for &child in children.iter().rev() {
                    self.count()?;
                    match &self.arena.nodes[child].raw {
                        Raw::Alias { target, .. } => {
                            self.merge_alias(child, *target, map, depth)?;
                        }
                        Raw::Map(_) => self.decode_mapping(child, map, depth)?,
                        _ => return Err(merge_error()),
                    }
                }
                Ok(())
            }
            Raw::Scalar { .. } => Err(merge_error()),
        }
    }

    fn merge_alias(
        &mut self,
        alias: usize,
        target: usize,
        map: &mut MapBuilder,
        depth: usize,
    ) -> Result<(), YamlError> {
        if !matches!(self.arena.nodes[target].raw, Raw::Map(_)) {
            return Err(merge_error());
        }
        if self.expanding.contains(&alias) {
            let Raw::Alias { anchor, .. } = &self.arena.nodes[alias].raw else {
                return Err(merge_error());
            };
            return Err(YamlError::Go(format!(
                "yaml: anchor '{anchor}' value contains itself"
            )));
        }
        self.count()?;
        self.expanding.push(alias);
        self.alias_depth += 1;
        let result = self.decode_mapping(target, map, depth);
        self.alias_depth -= 1;
        self.expanding.pop();
        result
    }
}

fn merge_error() -> YamlError {
    YamlError::Go("yaml: map merge requires map or sequence of maps as the value".into())
}

/// A key as `%#v` prints it in go-yaml's duplicate-key message.
fn go_key(key: &Node) -> String {
    match key {
        Node::Str(s) => go_quote(s),
        other => other.go_syntax(),
    }
}

const LONG_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// go-yaml v2's `shortTag`.
fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

/// go-yaml v2's `decoder.scalar` into `interface{}`: a quoted untagged scalar is a string;
/// others are resolved; `!!binary` is base64-decoded.
pub(super) fn decode_scalar(
    tag: Option<&str>,
    value: &str,
    implicit: bool,
) -> Result<Node, YamlError> {
    let tag = tag.map(short_tag).unwrap_or_default();
    if tag.is_empty() && !implicit {
        return Ok(Node::Str(value.to_string()));
    }
    if tag == "!!binary" {
        use base64::Engine as _;
        let text: String = value.chars().filter(|c| *c != '\n' && *c != '\r').collect();
        return base64::engine::general_purpose::STANDARD
            .decode(text)
            .map(|bytes| Node::Str(String::from_utf8_lossy(&bytes).into_owned()))
            .map_err(|_| {
                YamlError::Go("yaml: !!binary value contains invalid base64 data".into())
            });
    }
    resolve(&tag, value)
}

/// go-yaml v2's `resolve` for a scalar with the (short) tag given, or none (""): the value
/// and, if the tag asks for another kind than the text resolves to, go-yaml's error.
pub(super) fn resolve(tag: &str, text: &str) -> Result<Node, YamlError> {
    const RESOLVABLE: [&str; 7] = [
        "",
        "!!str",
        "!!bool",
        "!!int",
        "!!float",
        "!!null",
        "!!timestamp",
    ];
    if !RESOLVABLE.contains(&tag) {
        return Ok(Node::Str(text.to_string()));
    }
    let (rtag, node) = resolve_plain(tag, text);
    if tag.is_empty() || tag == rtag || tag == "!!str" {
        return Ok(node);
    }
    if tag == "!!float" && rtag == "!!int" {
        if let Node::Int(i) = node {
            return Ok(Node::Float(i as f64));
        }
    }
    Err(YamlError::Go(format!(
        "yaml: cannot decode {rtag} `{text}` as a {tag}"
    )))
}

/// The kind go-yaml's table gives a scalar by its first byte.
fn hint(text: &str) -> u8 {
    match text.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => 0,
    }
}

/// go-yaml v2's table of scalars resolved by their whole text (YAML 1.1's booleans, nulls,
/// infinities and NaN).
fn by_text(text: &str) -> Option<(&'static str, Node)> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            ("!!bool", Node::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            ("!!bool", Node::Bool(false))
        }
        "" | "~" | "null" | "Null" | "NULL" => ("!!null", Node::Null),
        ".nan" | ".NaN" | ".NAN" => ("!!float", Node::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            ("!!float", Node::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => ("!!float", Node::Float(f64::NEG_INFINITY)),
        _ => return None,
    })
}

fn resolve_plain(tag: &str, text: &str) -> (&'static str, Node) {
    let hint = hint(text);
    if hint != 0 && tag != "!!str" && tag != "!!binary" {
        if let Some(found) = by_text(text) {
            return found;
        }
        match hint {
            b'.' => {
                if let Some(f) = go_parse_float(text) {
                    return ("!!float", Node::Float(f));
                }
            }
            b'D' | b'S' => {
                if (tag.is_empty() || tag == "!!timestamp") && is_timestamp(text) {
                    // Decoded into interface{}, go-yaml v2 keeps a timestamp's text.
                    return ("!!timestamp", Node::Str(text.to_string()));
                }
                let plain = text.replace('_', "");
                if let Some(int) = go_parse_int(&plain) {
                    return ("!!int", int);
                }
                if yaml_style_float(&plain) {
                    if let Some(f) = go_parse_float(&plain) {
                        return ("!!float", Node::Float(f));
                    }
                }
            }
            _ => {}
        }
    }
    ("!!str", Node::Str(text.to_string()))
}

/// `strconv.ParseInt(s, 0, 64)`, then `strconv.ParseUint(s, 0, 64)`: an optional sign
/// (ParseInt only), then `0x`, `0o`, `0b` or a leading `0` (octal) prefix, or decimal.
fn go_parse_int(s: &str) -> Option<Node> {
    let (negative, signed, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, true, &s[1..]),
        Some(b'+') => (false, true, &s[1..]),
        _ => (false, false, s),
    };
    let lower = rest.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        if magnitude <= 1u128 << 63 {
            return Some(Node::Int((magnitude as i128).wrapping_neg() as i64));
        }
        return None;
    }
    if magnitude <= i64::MAX as u128 {
        return Some(Node::Int(magnitude as i64));
    }
    if !signed && magnitude <= u64::MAX as u128 {
        return Some(Node::Uint(magnitude as u64));
    }
    None
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
            .expect("a valid pattern")
    })
    .is_match(s)
}

/// `strconv.ParseFloat(s, 64)` for decimal texts: out of range is an error (so `1e400`
/// stays a string), underflow is zero.
fn go_parse_float(s: &str) -> Option<f64> {
    if !s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// go-yaml v2's `parseTimestamp`: `YYYY-M-D`, `YYYY-M-D h:m:s[.f]` or
/// `YYYY-M-DTh:m:s[.f](Z|±hh:mm)` (`t` too).
fn is_timestamp(s: &str) -> bool {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})| [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?)?$",
        )
        .expect("a valid pattern")
    })
    .is_match(s)
}
