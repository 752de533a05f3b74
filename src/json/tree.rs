//! A JSON document split into its containers' parts at most once each.
//!
//! Detecting a transcript's format asks the same questions of the same values over and over:
//! every adapter's detector looks at the root's elements, each record's members and the first
//! messages of each list, and the chosen adapter's reader then walks the same containers again.
//! Splitting a container means scanning all of its text (serde_json skips every string it
//! holds), so asking [`array_elements`](super::array_elements) or [`member`](super::member)
//! anew for each question scanned a 4 MB file a dozen times. A [`Node`] keeps its split: the
//! first call to [`Node::elements`], [`Node::members`] or [`Node::member`] scans the value once,
//! every later call, from any detector or reader, looks at what that scan found. Values stay
//! borrowed [`RawValue`]s, so spans into the source still come from [`span_of`](super::span_of).

use super::array_elements;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

/// A value of a document, with its parts once something asked for them.
pub struct Node<'a> {
    raw: &'a RawValue,
    parts: OnceCell<Parts<'a>>,
}

/// What a value holds, split once.
enum Parts<'a> {
    /// The elements of an array.
    Elements(Vec<Node<'a>>),
    /// The members of an object in their written order (a repeated key kept each time).
    Members(Vec<(Cow<'a, str>, Node<'a>)>),
    /// A scalar.
    Scalar,
}

impl<'a> Node<'a> {
    /// `raw`, not split yet.
    pub fn new(raw: &'a RawValue) -> Self {
        Node {
            raw,
            parts: OnceCell::new(),
        }
    }

    /// The raw value, borrowed from the source.
    pub fn raw(&self) -> &'a RawValue {
        self.raw
    }

    /// The value's text in the source.
    pub fn get(&self) -> &'a str {
        self.raw.get()
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
        self.parts.get_or_init(|| split(self.raw))
    }
}

/// One scan of `raw`: its elements or members as nodes not split yet.
fn split(raw: &RawValue) -> Parts<'_> {
    let text = raw.get();
    if let Some(elements) = array_elements(raw) {
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
        Parts::Members(members)
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

    #[test]
    fn splits_as_the_one_off_helpers_do() {
        let src = r#"{"a": [1, {"b": "x\"y"}], "a": 2, "c": {}}"#;
        let node = Node::new(parse_raw(src).unwrap());
        let keys: Vec<&str> = node
            .members()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_ref())
            .collect();
        assert_eq!(keys, ["a", "a", "c"]);
        assert_eq!(
            node.elements().map(<[_]>::len),
            None,
            "an object has no elements"
        );
        let a = node.member("a").unwrap();
        assert_eq!(
            a.get(),
            member(node.raw(), "a").unwrap().get(),
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
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let src = r#"{"\u0072ole": "user", "a\"b": 1, "plain": 2}"#;
        let node = Node::new(parse_raw(src).unwrap());
        let keys: Vec<&str> = node
            .members()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_ref())
            .collect();
        assert_eq!(keys, ["role", "a\"b", "plain"]);
        assert!(matches!(node.members().unwrap()[2].0, Cow::Borrowed(_)));
        assert_eq!(node.member("role").unwrap().get(), "\"user\"");
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
