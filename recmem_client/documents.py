"""The GraphQL documents the client sends, one per operation, shared by the async and sync clients.

Each selection selects a record of recmem_client/types.py: every field of it, by its camelCase name
(parsers.py reads them so, and reports any that is missing). A document carries only the fragments
it uses: GraphQL validation refuses unused ones. Every document stays well inside the service's
default limits (depth 12, 2000 lexer tokens, 15 aliases; api/settings.py).
"""

from __future__ import annotations

INTERACTION = """fragment InteractionFields on Interaction {
  id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef
}"""

EPISODE = """fragment EpisodeFields on Episode {
  id userId title summary version current firstAt lastAt validFrom supersededAt createdAt
}"""

FACT = """fragment FactFields on Fact { id userId text kind status validFrom validTo createdAt }"""

EVENT = """fragment EventFields on ConsolidationEvent {
  userId triggerId action episodeId previousEpisodeId factIds supersededFactIds consolidatedIds
  llmCalls error
}"""

REMEMBERED = """fragment RememberedFields on RememberPayload {
  interactionId created seq
  consolidation { ...EventFields }
  interaction { ...InteractionFields }
}"""

RUN = """fragment RunFields on ConsolidationRun {
  id userId op trigger provider model status promptTokens completionTokens latencyMs
  neighborCount threshold at error
}"""

RECALL = """fragment RecallFields on Recall {
  query asOf
  subconscious { score interaction { ...InteractionFields } }
  episodic { score sourceIds episode { ...EpisodeFields } }
  semantic { score sourceIds fact { ...FactFields } }
  context { text tokens budget items { layer id line tokens score rankScore sourceIds } }
}"""

CHANGE = """fragment ChangeFields on FactChange { reason at fact { ...FactFields } }"""


def _document(operation: str, *fragments: str) -> str:
    return "\n".join((operation, *fragments))


REMEMBER_DOC = _document(
    """mutation Remember($input: RememberInput!, $consolidate: Boolean) {
  remember(input: $input, consolidate: $consolidate) { ...RememberedFields }
}""",
    REMEMBERED,
    EVENT,
    INTERACTION,
)

REMEMBER_BATCH_DOC = _document(
    """mutation RememberBatch($userId: ID!, $units: [UnitInput!]!, $consolidate: Boolean) {
  rememberBatch(userId: $userId, units: $units, consolidate: $consolidate) { ...RememberedFields }
}""",
    REMEMBERED,
    EVENT,
    INTERACTION,
)

CONSOLIDATE_DOC = _document(
    """mutation Consolidate($userId: ID!) { consolidate(userId: $userId) { ...EventFields } }""",
    EVENT,
)

RECALL_DOC = _document(
    """query Recall($userId: ID!, $query: String!, $budget: BudgetInput, $asOf: DateTime,
  $includeConsolidated: Boolean, $lexical: Boolean! = true) {
  recall(userId: $userId, query: $query, budget: $budget, asOf: $asOf,
    includeConsolidated: $includeConsolidated, lexical: $lexical) { ...RecallFields }
}""",
    RECALL,
    INTERACTION,
    EPISODE,
    FACT,
)

ANSWER_DOC = _document(
    """query Answer($userId: ID!, $question: String!, $budget: BudgetInput, $asOf: DateTime) {
  answer(userId: $userId, question: $question, budget: $budget, asOf: $asOf) {
    text usedIds runId promptTokens completionTokens
    recall { ...RecallFields }
  }
}""",
    RECALL,
    INTERACTION,
    EPISODE,
    FACT,
)

AUDIT_DOC = _document(
    """query Audit($id: ID!) {
  fact(id: $id) {
    audit {
      fact { ...FactFields }
      episodes { episode { ...EpisodeFields } sources { similarity interaction { ...InteractionFields } } }
      interactions { ...InteractionFields }
      supersedes { ...ChangeFields }
      supersededBy { ...ChangeFields }
      runs { ...RunFields }
      promptTokens completionTokens
    }
  }
}""",
    CHANGE,
    FACT,
    EPISODE,
    INTERACTION,
    RUN,
)

FORGET_INTERACTION_DOC = """mutation ForgetInteraction($id: ID!) {
  forgetInteraction(id: $id) {
    interactionIds episodeIds factIds runIds rebuiltEpisodeIds rebuiltFactIds restoredFactIds
  }
}"""

FORGET_USER_DOC = """mutation ForgetUser($id: ID!) {
  forgetUser(id: $id) { userId interactions episodes facts runs }
}"""
