//! YAML events from libyaml (through `unsafe-libyaml-norway`, the parser `serde_norway` is
//! built on), behind a safe interface. go-yaml v2 — the YAML library behind
//! sigs.k8s.io/yaml, which Kubernetes reads YAML with — is a line-by-line Go port of
//! libyaml's scanner and parser, so libyaml accepts and rejects the same texts, with the same
//! problem texts; the resolution of scalars to values (go-yaml's own part) is in `yaml.rs`.
//!
//! This module is the only unsafe code of the crate: it owns one `yaml_parser_t`, feeds it a
//! borrowed text, and copies each event's data out before the event is freed.

#![allow(unsafe_code)]

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use unsafe_libyaml_norway as unsafe_libyaml;

/// A position in the text (0-based line and column, as libyaml counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Mark {
    pub line: u64,
    pub column: u64,
    /// The byte offset in the text (after a byte order mark, which libyaml skips).
    pub index: u64,
}

/// One parsing event with its data copied out.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias {
        anchor: String,
    },
    Scalar {
        anchor: Option<String>,
        tag: Option<String>,
        value: String,
        /// No tag was given and the scalar is plain (libyaml's `plain_implicit`): its type
        /// is resolved from its text.
        plain_implicit: bool,
    },
    SequenceStart {
        anchor: Option<String>,
        flow: bool,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        flow: bool,
    },
    MappingEnd,
}

/// A syntax error as libyaml reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SyntaxError {
    /// The problem text (`did not find expected key`, ...).
    pub problem: String,
    /// Where the problem is.
    pub problem_mark: Mark,
    /// Where the construct that has the problem started.
    pub context_mark: Mark,
    /// A scanner error (as opposed to a parser error): go-yaml reports their line 1-based.
    pub scanner: bool,
}

/// An event parser over a borrowed text.
pub(super) struct Parser<'a> {
    raw: Box<MaybeUninit<unsafe_libyaml::yaml_parser_t>>,
    finished: bool,
    _input: PhantomData<&'a [u8]>,
}

impl<'a> Parser<'a> {
    /// A parser of `input`.
    pub fn new(input: &'a [u8]) -> Parser<'a> {
        let mut raw = Box::new(MaybeUninit::<unsafe_libyaml::yaml_parser_t>::uninit());
        // SAFETY: `raw` is a valid, writable parser struct; initialize fills it. The input
        // pointer stays valid for 'a, which the parser's lifetime is tied to, and the parser
        // is deleted (in Drop) before the borrow ends. An empty slice still has a non-null
        // dangling pointer, which libyaml never reads past `size` (0) bytes of.
        unsafe {
            let parser = raw.as_mut_ptr();
            if unsafe_libyaml::yaml_parser_initialize(parser).fail {
                // Only a failed allocation makes initialize fail.
                std::alloc::handle_alloc_error(std::alloc::Layout::new::<
                    unsafe_libyaml::yaml_parser_t,
                >());
            }
            unsafe_libyaml::yaml_parser_set_input_string(parser, input.as_ptr(), input.len() as _);
        }
        Parser {
            raw,
            finished: false,
            _input: PhantomData,
        }
    }

    /// The next event and its start mark; after a syntax error or the stream's end, no more.
    pub fn next_event(&mut self) -> Result<(Event, Mark), SyntaxError> {
        if self.finished {
            return Ok((Event::StreamEnd, Mark::default()));
        }
        let mut event = MaybeUninit::<unsafe_libyaml::yaml_event_t>::uninit();
        // SAFETY: the parser was initialized in `new` and is not finished; `event` is written
        // by yaml_parser_parse before it is read, and deleted after its data is copied out.
        unsafe {
            let parser = self.raw.as_mut_ptr();
            if unsafe_libyaml::yaml_parser_parse(parser, event.as_mut_ptr()).fail {
                self.finished = true;
                return Err(syntax_error(&*parser));
            }
            let event = event.as_mut_ptr();
            let mark = mark_of((*event).start_mark);
            let copied = copy_event(&*event);
            unsafe_libyaml::yaml_event_delete(event);
            if copied == Event::StreamEnd {
                self.finished = true;
            }
            Ok((copied, mark))
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: the parser was initialized in `new` and is deleted once.
        unsafe { unsafe_libyaml::yaml_parser_delete(self.raw.as_mut_ptr()) }
    }
}

fn mark_of(mark: unsafe_libyaml::yaml_mark_t) -> Mark {
    Mark {
        line: mark.line,
        column: mark.column,
        index: mark.index,
    }
}

/// A NUL-terminated libyaml string (null: none) as an owned string.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string that libyaml allocated.
unsafe fn c_string(ptr: *const u8) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: as the caller promises.
    let bytes = unsafe { std::ffi::CStr::from_ptr(ptr.cast()) }.to_bytes();
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// # Safety
/// `event` was filled by a successful yaml_parser_parse and is not deleted yet.
unsafe fn copy_event(event: &unsafe_libyaml::yaml_event_t) -> Event {
    // SAFETY: the union member read is the one the event's type selects; its pointers are
    // libyaml's NUL-terminated strings (or, for a scalar's value, `length` bytes).
    unsafe {
        match event.type_ {
            unsafe_libyaml::YAML_STREAM_START_EVENT => Event::StreamStart,
            unsafe_libyaml::YAML_STREAM_END_EVENT => Event::StreamEnd,
            unsafe_libyaml::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
            unsafe_libyaml::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
            unsafe_libyaml::YAML_ALIAS_EVENT => Event::Alias {
                anchor: c_string(event.data.alias.anchor).unwrap_or_default(),
            },
            unsafe_libyaml::YAML_SCALAR_EVENT => {
                let scalar = event.data.scalar;
                let value = if scalar.value.is_null() {
                    String::new()
                } else {
                    let bytes = std::slice::from_raw_parts(scalar.value, scalar.length as usize);
                    String::from_utf8_lossy(bytes).into_owned()
                };
                Event::Scalar {
                    anchor: c_string(scalar.anchor),
                    tag: c_string(scalar.tag),
                    value,
                    plain_implicit: scalar.plain_implicit,
                }
            }
            unsafe_libyaml::YAML_SEQUENCE_START_EVENT => {
                let start = event.data.sequence_start;
                Event::SequenceStart {
                    anchor: c_string(start.anchor),
                    flow: start.style == unsafe_libyaml::YAML_FLOW_SEQUENCE_STYLE,
                }
            }
            unsafe_libyaml::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
            unsafe_libyaml::YAML_MAPPING_START_EVENT => {
                let start = event.data.mapping_start;
                Event::MappingStart {
                    anchor: c_string(start.anchor),
                    flow: start.style == unsafe_libyaml::YAML_FLOW_MAPPING_STYLE,
                }
            }
            unsafe_libyaml::YAML_MAPPING_END_EVENT => Event::MappingEnd,
            // YAML_NO_EVENT is never returned by a successful parse.
            _ => Event::StreamEnd,
        }
    }
}

/// # Safety
/// `parser` is an initialized parser whose last parse failed.
unsafe fn syntax_error(parser: &unsafe_libyaml::yaml_parser_t) -> SyntaxError {
    // SAFETY: libyaml's problem text is a static NUL-terminated string (or null).
    let problem = unsafe { c_string(parser.problem.cast()) };
    SyntaxError {
        problem: problem.unwrap_or_default(),
        problem_mark: mark_of(parser.problem_mark),
        context_mark: mark_of(parser.context_mark),
        scanner: parser.error == unsafe_libyaml::YAML_SCANNER_ERROR,
    }
}
