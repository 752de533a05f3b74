from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

from langchain_core.messages import BaseMessage

_Types = Union[str, Type[BaseMessage], Sequence[Union[str, Type[BaseMessage]]], None]

def trim(
    messages: Sequence[BaseMessage],
    max_tokens: int,
    *,
    token_counter: Any = ...,
    strategy: str = ...,
    allow_partial: bool = ...,
    end_on: _Types = ...,
    start_on: _Types = ...,
    include_system: bool = ...,
    text_splitter: Optional[Callable[[str], List[str]]] = ...,
    model: Optional[str] = ...,
    compaction: Any = ...,
    **settings: Any,
) -> List[BaseMessage]: ...
def trim_with_report(
    messages: Sequence[BaseMessage],
    max_tokens: int,
    *,
    token_counter: Any = ...,
    strategy: str = ...,
    allow_partial: bool = ...,
    end_on: _Types = ...,
    start_on: _Types = ...,
    include_system: bool = ...,
    text_splitter: Optional[Callable[[str], List[str]]] = ...,
    model: Optional[str] = ...,
    compaction: Any = ...,
    **settings: Any,
) -> Tuple[List[BaseMessage], Optional[Dict[str, Any]]]: ...
