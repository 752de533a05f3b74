//! A JSON document split into its containers' parts at most once each.
//!
//! Detecting a transcript's format asks the same questions of the same values over and over:
//! every adapter's detector looks at the root's elements, each record's members and the first
//! messages of each list, and the chosen adapter's reader then walks the same containers again.
//! Splitting a container means scanning all of its text (serde_json skips every string it
//! holds), so asking [`array_elements`](super::array_elements) or [`member`](super::member)
//! anew for each question scanned a 4 MB file a dozen times. A [`Node`] keeps its split: the
//! first call to [`Node::elements`], [`Node::members`] or [`Node::member`] scans the value once,
//! every later call, from any detector or reader, looks at what that scan found. A document
//! (or a JSONL line) is split as it is parsed ([`Node::parse`]): the scan that checks its
//! syntax is the one that finds its first level. Values stay borrowed slices of the source, so
//! spans still come from [`span_of`](super::span_of).

use super::parse_raw;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

/// A value of a document, with its parts once something asked for them.
pub struct Node<'a> {
    /// The value's text in the source, without the whitespace around it.
    text: &'a str,
    parts: OnceCell<Parts<'a>>,
}

/// What a value holds, split once. Boxed slices: a tree lives as long as its document is
/// read, and a vector grown member by member would keep up to as much room again unused.
enum Parts<'a> {
    /// The elements of an array.
    Elements(Box<[Node<'a>]>),
    /// The members of an object in their written order (a repeated key kept each time).
    Members(Box<[(Cow<'a, str>, Node<'a>)]>),
    /// A scalar.
    Scalar,
}

impl<'a> Node<'a> {
    /// `raw`, not split yet.
    pub fn new(raw: &'a RawValue) -> Self {
        Node {
            text: raw.get(),
            parts: OnceCell::new(),
        }
    }

    /// Parses `text`, one JSON value with whitespace around it, split into its elements or
    /// members in the same scan. Fails where [`parse_raw`] fails; the error may differ (a
    /// caller that reports it asks `parse_raw`).
    pub fn parse(text: &'a str) -> serde_json::Result<Node<'a>> {
        let value = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
        let parts = match value.as_bytes().first() {
            Some(b'[') => {
                let elements: Vec<&RawValue> = serde_json::from_str(text)?;
                Parts::Elements(elements.into_iter().map(Node::new).collect())
            }
            Some(b'{') => {
                let mut de = serde_json::Deserializer::from_str(text);
                let members = de.deserialize_map(MemberNodes)?;
                de.end()?;
                Parts::Members(members.into_boxed_slice())
            }
            _ => {
                parse_raw(text)?;
                Parts::Scalar
            }
        };
        Ok(Node {
            text: value,
            parts: OnceCell::from(parts),
        })
    }

    /// `text`, a copy of a value that parsed (with whitespace around it), not checked again
    /// and not split until something asks.
    pub fn copied(text: &'a str) -> Self {
        Node {
            text: text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r')),
            parts: OnceCell::new(),
        }
    }

    /// `text`, a value inside one that parsed (no whitespace around it), not split yet.
    fn unchecked(text: &'a str) -> Self {
        Node {
            text,
            parts: OnceCell::new(),
        }
    }

    /// The same value as a node of its own, not split yet: for a question no reader asks
    /// again (a detector looking into every message), whose split would otherwise be kept as
    /// long as the document.
    pub fn detached(&self) -> Node<'a> {
        Node {
            text: self.text,
            parts: OnceCell::new(),
        }
    }

    /// The value's text in the source.
    pub fn get(&self) -> &'a str {
        self.text
    }

    /// The elements of an array, in order, or `None` when this is not an array.
    pub fn elements(&self) -> Option<&[Node<'a>]> {
        match self.parts() {
            Parts::Elements(elements) => Some(elements),
            _ => None,
        }
    }

    /// The members of an object in their written order, or `None` when this is not an object.
    pub fn members(&self) -> Option<&[(Cow<'a, str>, Node<'a>)]> {
        match self.parts() {
            Parts::Members(members) => Some(members),
            _ => None,
        }
    }

    /// The members of an object, only if something split it already (else `None`, also
    /// when this is not an object): for a reader that can decode the value in one scan
    /// itself, where splitting it first would scan it twice.
    pub fn members_if_split(&self) -> Option<&[(Cow<'a, str>, Node<'a>)]> {
        match self.parts.get()? {
            Parts::Members(members) => Some(members),
            _ => None,
        }
    }

    /// Member `key` of an object (the first, if it is repeated).
    pub fn member(&self, key: &str) -> Option<&Node<'a>> {
        self.members()?
            .iter()
            .find_map(|(k, v)| (k == key).then_some(v))
    }

    /// Whether the value is a JSON string.
    pub fn is_string(&self) -> bool {
        self.get().starts_with('"')
    }

    fn parts(&self) -> &Parts<'a> {
        self.parts.get_or_init(|| split(self.text))
    }
}

/// One scan of `text`, a JSON value: its elements or members as nodes not split yet (what
/// [`array_elements`](super::array_elements) and [`object_members`](super::object_members)
/// find). A node's text always parsed already, so it is scanned without checking it again
/// ([`super::scan`]); serde_json splits what that scan does not take.
fn split(text: &str) -> Parts<'_> {
    if let Some(elements) = super::scan::elements(text) {
        return Parts::Elements(elements.into_iter().map(Node::unchecked).collect());
    }
    if let Some(members) = super::scan::members(text) {
        let members = members.into_iter().map(|(k, v)| (k, Node::unchecked(v)));
        return Parts::Members(members.collect());
    }
    let elements = text
        .starts_with('[')
        .then(|| serde_json::from_str::<Vec<&RawValue>>(text).ok())
        .flatten();
    if let Some(elements) = elements {
        Parts::Elements(elements.into_iter().map(Node::new).collect())
    } else if let Some(members) = text
        .starts_with('{')
        .then(|| {
            serde_json::Deserializer::from_str(text)
                .deserialize_map(MemberNodes)
                .ok()
        })
        .flatten()
    {
        Parts::Members(members.into_boxed_slice())
    } else {
        Parts::Scalar
    }
}

/// Reads an object's members as nodes, keys borrowed from the source unless they hold
/// escapes (as [`object_members`](super::object_members) reads them, without a `String` per
/// key).
struct MemberNodes;

impl<'de> Visitor<'de> for MemberNodes {
    type Value = Vec<(Cow<'de, str>, Node<'de>)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some((Key(key), value)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
            members.push((key, Node::new(value)));
        }
        Ok(members)
    }
}

/// An object key: borrowed when its text needs no unescaping.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(key)))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(key.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{member, parse_raw};

    /// The keys of an object node, in written order.
    fn keys_of<'n>(node: &'n Node) -> Vec<&'n str> {
        node.members()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_ref())
            .collect()
    }

    #[test]
    fn splits_as_the_one_off_helpers_do() {
        let src = r#"{"a": [1, {"b": "x\"y"}], "a": 2, "c": {}}"#;
        let node = Node::new(parse_raw(src).unwrap());
        let keys = keys_of(&node);
        assert_eq!(keys, ["a", "a", "c"]);
        assert_eq!(
            node.elements().map(<[_]>::len),
            None,
            "an object has no elements"
        );
        let a = node.member("a").unwrap();
        assert_eq!(
            a.get(),
            member(parse_raw(src).unwrap(), "a").unwrap().get(),
            "the first of a repeated key"
        );
        let elements = a.elements().unwrap();
        assert_eq!(elements.len(), 2);
        assert_eq!(
            elements[0].members().map(<[_]>::len),
            None,
            "a number has no members"
        );
        assert_eq!(elements[1].member("b").unwrap().get(), r#""x\"y""#);
        assert!(elements[1].member("b").unwrap().is_string());
        assert_eq!(node.member("c").unwrap().members().unwrap().len(), 0);
        assert!(node.member("d").is_none());
        let fresh = Node::new(parse_raw(src).unwrap());
        assert!(fresh.members_if_split().is_none(), "not split yet");
        fresh.member("a");
        assert_eq!(fresh.members_if_split().map(<[_]>::len), Some(3));
        assert!(elements[0].members_if_split().is_none(), "a split number");
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let src = r#"{"\u0072ole": "user", "a\"b": 1, "plain": 2}"#;
        let node = Node::new(parse_raw(src).unwrap());
        let keys = keys_of(&node);
        assert_eq!(keys, ["role", "a\"b", "plain"]);
        assert!(matches!(node.members().unwrap()[2].0, Cow::Borrowed(_)));
        assert_eq!(node.member("role").unwrap().get(), "\"user\"");
    }

    #[test]
    fn parsing_splits_as_splitting_later_does() {
        for src in [
            " [1, {\"a\": 2} ,\"x\"]\n",
            "{\"role\": \"user\", \"content\": [{\"type\": \"text\"}]}",
            "\t\"just a string\" ",
            "12",
            "[]",
            "{}",
        ] {
            let parsed = Node::parse(src).unwrap();
            let later = Node::new(parse_raw(src).unwrap());
            assert_eq!(parsed.get(), later.get(), "{src:?}");
            assert_eq!(parsed.get(), src.trim(), "{src:?}");
            let texts = |n: &Node| -> Option<Vec<String>> {
                n.elements()
                    .map(|e| e.iter().map(|x| x.get().to_string()).collect())
                    .or_else(|| {
                        n.members()
                            .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.get())).collect())
                    })
            };
            assert_eq!(texts(&parsed), texts(&later), "{src:?}");
        }
        for bad in ["", "[1,", "{\"a\" 1}", "[1] x", "{\"a\": 1}}", "tru"] {
            assert!(Node::parse(bad).is_err(), "{bad:?}");
            assert!(parse_raw(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn spans_point_into_the_source() {
        let src = "[ {\"role\": \"user\"} ,\n 3 ]";
        let node = Node::new(parse_raw(src).unwrap());
        let first = &node.elements().unwrap()[0];
        let role = first.member("role").unwrap();
        assert_eq!(&src[crate::json::span_of(src, role.get())], "\"user\"");
        assert_eq!(crate::json::span_of(src, first.get()), 2..18);
    }
}
