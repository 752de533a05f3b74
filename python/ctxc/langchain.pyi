from typing import Any, Dict, List, Optional, Sequence, Tuple

from langchain_core.messages import BaseMessage

def trim(
    messages: Sequence[BaseMessage],
    max_tokens: int,
    *,
    strategy: Any = ...,
    model: Optional[str] = ...,
    **settings: Any,
) -> List[BaseMessage]: ...
def trim_with_report(
    messages: Sequence[BaseMessage],
    max_tokens: int,
    *,
    strategy: Any = ...,
    model: Optional[str] = ...,
    **settings: Any,
) -> Tuple[List[BaseMessage], Optional[Dict[str, Any]]]: ...
