"""An OpenAI-compatible HTTP server for tests and offline benchmarks. Never used by the service itself."""

from local_llm_server.replies import Reply
from local_llm_server.server import LocalLLMServer
from local_llm_server.state import Responder

__all__ = ["LocalLLMServer", "Reply", "Responder"]
