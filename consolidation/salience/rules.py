"""The built-in salience rules: named patterns for one-off statements worth keeping at once.

Each rule is a case-insensitive regular expression over the turn's text; the first that matches
names the reason. They are narrow on purpose (docs/design/salience.md has the figures): a rule
that fires on chit-chat spends LLM tokens on every such turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KIN = (
    r"(?:wife|husband|partner|spouse|son|daughter|kid|child|mother|mom|mum|father|dad|brother|sister"
    r"|grand(?:mother|father|ma|pa|son|daughter)|aunt|uncle|cousin|niece|nephew|boss|manager"
    r"|doctor|dentist|therapist|landlord|lawyer|fianc[ée]e?|girlfriend|boyfriend|best friend|roommate)"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week)"
# A day: "3 May", "May 3rd", "30/06", "2024-06-30", or a weekday.
_DAY = (
    rf"(?:\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}\b|\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\b\d{{1,2}}[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{_WEEKDAY}\b)"
)


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]

    @classmethod
    def of(cls, name: str, pattern: str) -> Rule:
        return cls(name, re.compile(pattern, re.IGNORECASE))


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule.of(
        "explicit-request",
        r"(?:^|[.!?]\s+|,\s*)(?:please\s+)?(?:remember|note|keep in mind|don'?t forget|do not forget"
        r"|make a note|for the record)\b(?:\s+(?:that|this|:)|\s*:)",
    ),
    Rule.of(
        "correction",
        r"\b(?:actually|correction)[,:]?\s+(?:it'?s|it is|it was|that'?s|that was)\s+"
        r"(?:not\b|\w+(?: \w+)?,? not\b)"
        r"|\bcorrection:|\bi was wrong\b|\bi meant\b|\blet me correct\b|\bi got (?:that|it) wrong\b"
        r"|\bnot \w+(?: \w+)?,\s+(?:but|it'?s)\b",
    ),
    Rule.of(
        "health",
        r"\ballerg(?:y|ic|ies)\b|\bintoleran(?:t|ce)\b|\bdiagnosed with\b|\bprescri(?:bed|ption)\b"
        r"|\bmedication\b|\bblood type\b|\bdiabet(?:es|ic)\b|\basthma\b|\bepilep|\bi take \w+ (?:daily|every)"
        r"|\bmy (?:dose|dosage)\b|\bpregnan(?:t|cy)\b",
    ),
    Rule.of(
        "appointment",
        rf"\b(?:appointment|check-?up|surgery|interview|hearing)\b.{{0,60}}{_DAY}"
        rf"|{_DAY}.{{0,60}}\b(?:appointment|check-?up|surgery|interview|hearing)\b",
    ),
    Rule.of(
        "deadline",
        r"\bdeadline\b|\bdue (?:on|by)\b|\bcontract\b.{0,60}\b(?:ends?|expires?|runs|starts?|until|renew)"
        r"|\b(?:lease|subscription|policy|warranty|visa|passport)\b.{0,40}"
        r"\b(?:ends|expires|runs out|renews)\b"
        r"|\bnotice period\b|\bexpires? on\b",
    ),
    Rule.of(
        "name-relationship",
        rf"\bmy name is\b|\bcall me (?-i:[A-Z])|\bmy {_KIN}(?:'s name)? is "
        rf"(?:called |named )?(?-i:[A-Z][a-z]+)"
        rf"|\bmy {_KIN}'s (?:birthday|name|anniversary)\b|\b(?:birthday|anniversary) is (?:on )?{_DAY}",
    ),
    Rule.of(
        "identifier",
        r"\bmy (?:home |new |postal |mailing |work )?(?:address|phone(?: number)?|mobile(?: number)?"
        r"|e-?mail(?: address)?|passport(?: number)?|account(?: number)?|id(?: number)?"
        r"|licen[cs]e(?: number)?"
        r"|flight(?: number)?|booking(?: reference| number)?|reservation(?: number)?|policy number"
        r"|member(?:ship)? number|pin|zip(?: code)?|postcode|post code|iban|ssn|social security number)"
        r" (?:is|are)\b"
        r"|\bi live at \d"
        r"|\b\d{1,5} (?-i:[A-Z][a-z]+ (?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard))\b"
        r"|\b[\w.+-]+@[\w-]+\.[\w.]+\b|(?<![\w-])\+?\d{2,4}[ -]?\d{3}[ -]?\d{3,4}(?![\w-])",
    ),
)
