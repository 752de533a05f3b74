from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, TypeVar, Union, overload

import pyarrow

__version__: str

Message = Dict[str, Any]
Conversation = Union[Sequence[Message], Dict[str, Any]]
Format = Literal[
    "openai", "anthropic", "claude-code", "codex", "sharegpt", "openhands", "openhands-sdk", "atif"
]
OnFindings = Literal["keep", "refuse", "allow"]

class CtxcError(ValueError):
    message: str
    step: str
    line: int
    index: Optional[int]
    report: Optional[Dict[str, Any]]
    def __init__(
        self,
        message: str,
        *,
        step: str = ...,
        line: int = ...,
        index: Optional[int] = ...,
        report: Optional[Dict[str, Any]] = ...,
    ) -> None: ...

class Compacted:
    messages: Any
    report: Dict[str, Any]
    def __init__(self, messages: Any, report: Dict[str, Any]) -> None: ...

def compact(
    messages: Union[Conversation, str],
    *,
    target_ratio: Optional[float] = ...,
    target_tokens: Optional[int] = ...,
    strategy: Union[str, Sequence[str], None] = ...,
    format: Optional[Format] = ...,
    model: Optional[str] = ...,
    force: bool = ...,
    on_findings: Optional[OnFindings] = ...,
    # Deprecated: on_findings="allow".
    allow_findings: bool = ...,
    messages_path: Optional[str] = ...,
    **settings: Any,
) -> Compacted: ...
def count_tokens(
    messages_or_text: Union[Conversation, str],
    *,
    model: Optional[str] = ...,
    format: Optional[Format] = ...,
    messages_path: Optional[str] = ...,
) -> int: ...
def check(
    messages: Union[Conversation, str],
    *,
    format: Optional[Format] = ...,
    messages_path: Optional[str] = ...,
) -> List[Dict[str, Any]]: ...
def dumps(messages: Union[Conversation, str]) -> str: ...

REPORT_COLUMNS: Tuple[Tuple[str, str], ...]
REPORT_DDL: str

_Batch = TypeVar("_Batch", pyarrow.RecordBatch, pyarrow.Table, Dict[str, List[Any]])

def compact_batch(
    batch: _Batch,
    *,
    column: Optional[str] = ...,
    target_ratio: Optional[float] = ...,
    target_tokens: Optional[int] = ...,
    strategy: Union[str, Sequence[str], None] = ...,
    format: Optional[Format] = ...,
    model: Optional[str] = ...,
    force: bool = ...,
    on_findings: Optional[OnFindings] = ...,
    # Deprecated: on_findings="allow".
    allow_findings: bool = ...,
    messages_path: Optional[str] = ...,
    **settings: Any,
) -> _Batch: ...
