//! TEMPORARY scaffold: replaced by the real adapter.
use super::{Adapter, Conversation, Doc, OutItem, ReadError, ReadOptions, Transcript};

pub struct Codex;

impl Adapter for Codex {
    fn detect(&self, _doc: &Doc) -> bool {
        false
    }
    fn read(
        &self,
        _doc: &Doc,
        _opts: &ReadOptions,
    ) -> Result<(Vec<Conversation>, String), ReadError> {
        Err(ReadError::whole("not yet"))
    }
    fn render(&self, _t: &Transcript, _conv: &Conversation, _out: &OutItem) -> String {
        String::new()
    }
}
