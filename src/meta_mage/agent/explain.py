"""Questions about the coach's last answer ("what does 'leans favoured' mean?", "why is Boros Energy the safest
pick?", "how do you know?"): answered from a glossary of the coach's terms and the rule that produced the last
answer's ranking or verdict, without changing the request in progress (the next "and against X?" continues it).

Both are declared tables: :data:`GLOSSARY` (the terms, each with the words that name it) and each task's record's
``how_ranked`` (how its answer is ordered and judged). A message is a question about the last answer when it asks
what a term means, asks a bare "why?" after an answer, or asks why / how about a ranking or a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from meta_mage.agent.render import Block, Table, table_row
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks import TASKS
from meta_mage.analytics.clustering import MIN_PLAYERS, PLAYER_CORRELATION
from meta_mage.analytics.field import PICK_MARGIN
from meta_mage.analytics.karsten import FLEX_SHARE
from meta_mage.analytics.stats import CLEAR_POINTS, FEW_MATCHES


@dataclass(frozen=True)
class Term:
    name: str
    pattern: str  # the words that name it (a regular expression, case-insensitive)
    meaning: str


GLOSSARY: tuple[Term, ...] = (
    Term(
        "leans favoured / leans unfavoured",
        r"\bleans?\b",
        "a word the coach no longer says: matchups whose estimate was a few points off 50% won no more than half "
        "of their matches over the weeks that followed (backtested), so a lean claimed more than the data carries. "
        "The estimate and its interval are still shown.",
    ),
    Term(
        "favoured / unfavoured",
        r"(?<!leans )\b(?:un)?favou?red\b",
        f"the whole 95% interval of the model's estimate is {CLEAR_POINTS}+ points above (below) 50%, with results "
        f"by {MIN_PLAYERS}+ players and the pair's own record the same way. With archetype matchups as noisy as "
        "they are, this is rare.",
    ),
    Term(
        "too close to call",
        r"\btoo close\b",
        f"the estimate's interval does not clear 50% by {CLEAR_POINTS} points, or the estimate and the pair's own "
        "record point different ways: the data cannot call it.",
    ),
    Term(
        "too few matches to call",
        r"\btoo few\b",
        f"under {FEW_MATCHES} decided matches the estimate is mostly the two decks' overall strengths, not this "
        "matchup, so no verdict is said (only an interval clear of 50% would give one).",
    ),
    Term(
        "anecdote",
        r"\banecdot\w*",
        f"fewer than {MIN_PLAYERS} distinct players stand behind the record, so it says more about those "
        "players than about the decks: no verdict word is given.",
    ),
    Term(
        "estimate",
        r"\bestimates?\b|\bmatchup model\b|\bthe model\b",
        "the matchup model's win rate: each archetype's overall strength plus the pair's own deviation, "
        "pulled toward what the strengths predict as far as the format's data says matchups really differ. "
        "A pair with no matches gets the strengths' estimate. It was backtested on the next week's matches.",
    ),
    Term(
        "95% interval",
        r"\b(?:95\s*%?\s*)?(?:ci|confidence interval|interval)s?\b",
        "the range the true rate lies in with 95% confidence given the matches behind it; matches one "
        f"player played count as less than independent ones (within-player correlation {PLAYER_CORRELATION}).",
    ),
    Term(
        "meta share",
        r"\bmeta ?share\b|\bshare of the (?:field|meta)\b",
        "the archetype's decks as a share of all decks with a list in the window (Unknown included, so shares "
        "add up to 100%).",
    ),
    Term(
        "trend",
        r"\btrend\w*",
        "the change in meta share (or win rate) from the window before to this one, in percentage points.",
    ),
    Term(
        "field measured",
        r"\bfield measured\b|\bmeasured\b",
        "the share of the field (by meta share, the mirror included) the archetype has decided matches "
        "against; the rest of its expectation comes from the strengths alone.",
    ),
    Term(
        "expected vs field / safest pick",
        r"\bexpected\b|\bsafest\b|\bvs field\b",
        "the model's win rate against each archetype weighted by how much it is played, 50% in the mirror. Decks "
        f"rank on the low end of that interval; the pick needs results by {MIN_PLAYERS}+ players (the players "
        "behind its decided matches) and is named only when its low end clears the next deck's by "
        f"{PICK_MARGIN:.0f} points: smaller leads did not hold over the weeks that followed (backtested), so "
        "otherwise the coach says which decks the data cannot separate.",
    ),
    Term(
        "key cards",
        r"\bkey cards?\b",
        "the cards an opponent's lists play most that decide games (threats, engines, interaction), with the "
        "share of their lists that play each.",
    ),
    Term(
        "possibly one deck",
        r"\bone deck\b|\blook-?alikes?\b",
        "two archetypes whose usual main decks (nonland cards in more than half of their lists) differ by one "
        "or two cards: the archetype rules split what may be one deck.",
    ),
    Term(
        "stock list / flex copy",
        r"\bstock\b|\bkarsten\b|\bflex cop(?:y|ies)\b",
        "the stock list is Frank Karsten's aggregate of an archetype's lists: each copy of a card (the first, the "
        "second …) counts the lists that play at least that many, and the deck is made of the copies most lists "
        f"play, as many as the lists' usual size. A flex copy is one fewer than {FLEX_SHARE:.0f}% of the lists "
        "play: the lists disagree on it.",
    ),
    Term(
        "only N decided",
        r"\bdecided\b|\blow sample\b",
        "fewer decided matches (wins and losses; draws apart) than the low-sample threshold: a flag only, "
        "nothing is hidden.",
    ),
)


_ASKS_MEANING = re.compile(
    r"\bwhat(?:'s| is| are| does| do)\b.{0,60}\bmean\w*|\bwhat (?:is|are|'s) (?:an? |the )?['\"“]"
    r"|\bmeaning of\b|\bdefine\b|\bexplain\b",
    re.I,
)
_ASKS_SOURCE = re.compile(
    r"^\s*(?:how do you know|how did you (?:get|work|figure|come)|where (?:do|does|did) (?:these|the|this|that)"
    r"|explain (?:that|this|the|your)(?: (?:table|answer|ranking|list|grid))?\s*[?.!]*\s*$"
    r"|what does (?:that|this|the) (?:table|grid) show)",
    re.I,
)
SOURCE = (
    "Every figure comes from the tournament results of the format and window named at the top of the answer "
    "(the “Matches:” line says which events and how many matches); nothing is estimated from outside them."
)
_ASKS_WHY = re.compile(r"^\s*(?:why\b|how come\b|how do you know\b|how did you\b)", re.I)
# "why?", "how come?", "why is that?": about the whole last answer
_BARE_WHY = re.compile(
    r"^\s*(?:why|how come|how so|why (?:is|was) (?:that|this|it)(?: so)?|why (?:that|this|so))\s*[?.!]*\s*$", re.I
)
_ABOUT_RANKING = re.compile(
    r"\b(?:safest|pick|rank\w*|first|top|higher|lower|favou?red|leans?|anecdote|estimate|interval|verdict)\b", re.I
)


def how_ranked(task: str) -> str:
    """How the answer of ``task`` is ordered and judged, as its record says ("" for none)."""
    spec = TASKS.get(task)
    return spec.how_ranked if spec is not None else ""


def glossary_terms(message: str) -> list[Term]:
    return [term for term in GLOSSARY if re.search(term.pattern, message, re.I)]


@dataclass(frozen=True)
class AboutLastAnswer:
    """A kind of question about the last answer: when it is asked, and how it is answered."""

    asks: Callable[[str, list[Term], Route | None], bool]
    answer: Callable[[str, list[Term], Route, Sequence[Block]], str]


def _meanings(terms: list[Term]) -> str:
    return "\n\n".join(f"**{t.name}**: {t.meaning}" for t in terms)


def _rule_and_source(message: str, terms: list[Term], last: Route, last_answer: Sequence[Block]) -> str:
    return "\n\n".join(part for part in (how_ranked(last.task), SOURCE) if part)


def _rule_with_its_rows(message: str, terms: list[Term], last: Route, last_answer: Sequence[Block]) -> str:
    parts = (
        how_ranked(last.task),
        _places(message, last_answer),
        _quoted(message, terms, last_answer),
        _meanings(terms),
    )
    return "\n\n".join(part for part in parts if part)


# The first that holds answers: what a term means; a bare "why?" after an answer (how its task orders and judges,
# and where the figures come from); how the coach knows (the same); why a ranking or verdict is what it is (the
# rule, where the names asked about stand, the last answer's own rows, the terms).
ABOUT_LAST_ANSWER: tuple[AboutLastAnswer, ...] = (
    AboutLastAnswer(
        asks=lambda message, terms, last: bool(terms and _ASKS_MEANING.search(message)),
        answer=lambda message, terms, last, last_answer: _meanings(terms),
    ),
    AboutLastAnswer(
        asks=lambda message, terms, last: bool(_BARE_WHY.match(message) and last is not None and how_ranked(last.task)),
        answer=_rule_and_source,
    ),
    AboutLastAnswer(
        asks=lambda message, terms, last: bool(
            _ASKS_SOURCE.search(message) and last is not None and last.workflow != "clarify"
        ),
        answer=_rule_and_source,
    ),
    AboutLastAnswer(
        asks=lambda message, terms, last: bool(
            last is not None and _ASKS_WHY.search(message) and _ABOUT_RANKING.search(message)
        ),
        answer=_rule_with_its_rows,
    ),
)


def explanation(message: str, known: ConversationState, last_answer: Sequence[Block] = ()) -> str | None:
    """The answer to a question about the last answer (``ABOUT_LAST_ANSWER``), or None when ``message`` is not
    one. ``last_answer`` is the coach's last answer: its rows and lines about what the question names are quoted."""
    terms = glossary_terms(message)
    last = known.route if known.pending is None else None  # a question of the coach's is no answer to explain
    for kind in ABOUT_LAST_ANSWER:
        if kind.asks(message, terms, last):
            return kind.answer(message, terms, known.route or Route(), last_answer) or None
    return None


_NAME = re.compile(r"\b[A-Z][\w'-]+(?:\s+(?:[A-Z][\w'-]+|of|the))*(?<!\bof)(?<!\bthe)")
_NOT_NAMES = {"why", "how", "what", "is", "if", "i", "the", "and"}
MAX_QUOTED = 8


@dataclass(frozen=True)
class _Line:
    """A line of the last answer: a line of text, or a table's row (``table`` set) with what it is about."""

    text: str
    subject: str
    table: Table | None = None
    row: tuple[str, ...] = ()


def _lines(last_answer: Sequence[Block]) -> list[_Line]:
    """The last answer's lines in order: each line of its text, each row of its tables (about its first cell that
    is not a number: its archetype, card or drafter)."""
    lines: list[_Line] = []
    for block in last_answer:
        if isinstance(block, Table):
            lines += [_Line(table_row(row), _subject(row), block, row) for row in block.rows]
        else:
            lines += [_Line(line, line) for line in block.text.splitlines()]
    return lines


def _subject(row: tuple[str, ...]) -> str:
    return next((cell for cell in row if cell and not cell.replace(".", "").isdigit()), "")


def _named_subjects(message: str, last_answer: Sequence[Block]) -> list[str]:
    """What ``message`` names of the last answer's rows (their archetype, card or drafter), however it is written
    ("why is affinity first?"), plus any other capitalised name in it."""
    subjects = {line.subject for line in _lines(last_answer) if line.table is not None and line.subject}
    named = [s for s in sorted(subjects, key=len, reverse=True) if _in_words(s, message)]
    others = [n for n in _NAME.findall(message) if n.lower() not in _NOT_NAMES and not _in_words(n, " ".join(named))]
    return named + others


def _in_words(name: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I) is not None


def _places(message: str, last_answer: Sequence[Block]) -> str:
    """Where each name ``message`` asks about stands in the last answer's numbered table ("**Affinity** is #3 in
    the last answer.")."""
    names = _named_subjects(message, last_answer)
    placed = [
        f"**{line.subject}** is #{line.row[0]} in the last answer."
        for line in _lines(last_answer)
        if line.table is not None and line.table.columns[:1] == ("#",) and line.subject in names
    ]
    return " ".join(dict.fromkeys(placed))


def _quoted(message: str, terms: list[Term], last_answer: Sequence[Block]) -> str:
    """The last answer's own lines (table rows with their header) about what ``message`` names: the archetypes
    it names, else the lines using the terms it asks about; or that the last answer does not use the term."""
    names = _named_subjects(message, last_answer)
    wanted = [rf"(?<!\w){re.escape(n)}(?!\w)" for n in names] or [t.pattern for t in terms]
    picked = [
        line
        for line in _lines(last_answer)
        if line.text.strip() and any(re.search(w, line.subject, re.I) for w in wanted)
    ]
    if not picked:
        used = "; ".join(f"“{t.name}”" for t in terms)
        return f"(The last answer does not use {used}.)" if terms and not names and last_answer else ""
    return "From the last answer:\n\n" + "\n".join(_with_headers(picked[:MAX_QUOTED]))


def _with_headers(picked: list[_Line]) -> list[str]:
    """The picked lines; a table row comes under its table's header (and separator), once per table."""
    quoted: list[str] = []
    headed: list[Table] = []
    after_row = False
    for line in picked:
        if line.table is not None:
            if not any(line.table is table for table in headed):
                if quoted:
                    quoted.append("")  # a table starts after a blank line
                quoted += line.table.markdown().splitlines()[:2]
                headed.append(line.table)
        elif after_row:
            quoted.append("")
        quoted.append(line.text)
        after_row = line.table is not None
    return quoted
