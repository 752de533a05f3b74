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

use super::{array_elements, object_members};
use serde_json::value::RawValue;
use std::cell::OnceCell;

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
    Members(Vec<(String, Node<'a>)>),
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
    pub fn members(&self) -> Option<&[(String, Node<'a>)]> {
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
    if let Some(elements) = array_elements(raw) {
        Parts::Elements(elements.into_iter().map(Node::new).collect())
    } else if let Some(members) = object_members(raw) {
        let members = members
            .into_iter()
            .map(|(key, value)| (key, Node::new(value)))
            .collect();
        Parts::Members(members)
    } else {
        Parts::Scalar
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
            .map(|(k, _)| k.as_str())
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
    fn spans_point_into_the_source() {
        let src = "[ {\"role\": \"user\"} ,\n 3 ]";
        let node = Node::new(parse_raw(src).unwrap());
        let first = &node.elements().unwrap()[0];
        let role = first.member("role").unwrap();
        assert_eq!(&src[crate::json::span_of(src, role.get())], "\"user\"");
        assert_eq!(crate::json::span_of(src, first.get()), 2..18);
    }
}
