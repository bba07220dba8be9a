"""Display names: the one set of rules for the name a player is shown by, on the web and by mail.

A name is what a person typed (the sign-up form, the settings page, `/name NEW NAME` by mail) or
what a first mail proposes (the display name of its From, else the address's local part), made
into the form pbem keeps:

- normalised by the PRECIS nickname profile (RFC 8266, `precis-i18n`): NFKC (full-width letters
  become plain ones), other spaces become the ASCII space, leading and trailing spaces go and a
  run of spaces is one; a control, format or unassigned character (a zero-width space, a bidi
  mark) is refused there. The typographic apostrophe U+2019 is kept as ';
- MIN_NAME to MAX_NAME characters after that, at least one of them a letter;
- letters (with their combining marks), digits, spaces and - _ . ' only;
- unique on the site, ignoring case, and no look-alike of another player's name, by two keys
  that must be no other user's: the **skeleton** of UTS #39 (Unicode Security Mechanisms,
  section 4) of the name as written (`skeleton`: "PauI" with a capital i and "Paul", "Аnna" with a
  Cyrillic А and "Anna", "B0B" and "BOB"), and the skeleton of the case-folded name (`key`:
  "ANNA" and "anna", "аnna" and "Anna", "b0b" and "Bob"). One key cannot do both: UTS #39 maps a
  capital I to l but a small i to itself, so a key that folds case first misses "PauI", and one
  that folds after the skeleton gives "KIM" and "Kim" two keys.

The keys are kept in `users.name_key` and `users.name_skeleton`, each under a unique index (two
requests that race for the same name cannot both get it). The look-alike pairs are Unicode's
confusables.txt as the maintained `confusable-homoglyphs` package ships it: for each character
its prototype (and for a prototype its look-alikes); `_prototypes` turns that into the mapping
UTS #39 applies. A new release of that data can change the keys: the stored ones are then
recomputed with `columns` (as migration 0017 did).

A rename (`rename`) also renames the user's seats at open and running tables (their pages, boards
and mails show the new name from then on); the seats of finished and abandoned games keep the name
they were played under, as their archives and results do.

Not here: who may change a name (the caller has made sure it is the user), and quoting a name in
a mail to an address that may have no account (pbem.accounts.signup.quoted_name).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from precis_i18n import get_profile
from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from pbem.accounts.errors import AccountError
from pbem.i18n import N_
from pbem.models import Game, GameStatus, Seat, User

MIN_NAME, MAX_NAME = 2, 32  # characters, after normalising
KEY_CHARS = 255  # the keys' columns' length; a longer key (of a name kept from before the rules) is cut
PUNCTUATION = " -_.'"  # besides letters, their marks and digits
FALLBACK = "Player"  # what a first mail's name becomes when neither its From nor its address gives one
MAX_NUMBER = 10_000  # "Anna 2" ... "Anna 9999": the numbers tried for a proposed name that is taken
_LIVE = (GameStatus.OPEN.value, GameStatus.RUNNING.value)  # the tables whose seats follow a rename
_BIDI_MARKS = "\u200e\u200f"  # in the package's data around right-to-left characters; not part of them


_NOT_IN_A_NAME = N_("%(char)s cannot be in a name; a name has letters, digits, spaces and - _ . '.")


class DisplayNameError(AccountError):
    """A name that breaks a rule or is taken; the message says which, in one sentence."""


def _character(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".strip()


def normalize(text: str) -> str:
    """The name as pbem keeps it, or DisplayNameError saying which rule it breaks (not whether it is free)."""
    text = (text or "").replace("\u2019", "'")
    try:
        name = get_profile("NicknameCasePreserved").enforce(text)
    except UnicodeError as error:
        bad = getattr(error, "object", "")[getattr(error, "start", 0):getattr(error, "end", 0)]
        if not bad or not text.strip():
            raise DisplayNameError(N_("A name has %(least)d to %(most)d characters."), least=MIN_NAME,
                                   most=MAX_NAME) from None
        raise DisplayNameError(_NOT_IN_A_NAME, char=_character(bad[0])) from None
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise DisplayNameError(N_("A name has %(least)d to %(most)d characters; this one has %(count)d."),
                               least=MIN_NAME, most=MAX_NAME, count=len(name))
    previous = ""
    for char in name:
        kind = unicodedata.category(char)
        if not (kind[0] == "L" or kind == "Nd" or char in PUNCTUATION
                or (kind[0] == "M" and unicodedata.category(previous or " ")[0] in "LM")):
            raise DisplayNameError(_NOT_IN_A_NAME, char=_character(char))
        previous = char
    if not any(unicodedata.category(char)[0] == "L" for char in name):
        raise DisplayNameError(N_("A name needs at least one letter."))
    return name


# --------------------------------------------------------------------------------------
# Look-alikes (UTS #39 skeletons)


@lru_cache(maxsize=1)  # built once per process: 99 ms each time without it, on every sign-up, /name and first mail
def _prototypes() -> dict[str, str]:
    """Each character that has a look-alike prototype, mapped to it (confusables.txt's mapping).

    The package lists, for each character, the characters it is paired with in confusables.txt,
    in both directions: a source has exactly its prototype; a prototype has its sources. A
    prototype with a single source reads like that source, so for such a pair both are mapped to
    the smaller of the two: skeletons then stay equal exactly when UTS #39's are.
    """
    from confusable_homoglyphs.confusables import confusables_data  # loads its JSON: only when a name is checked

    def clean(text: str) -> str:
        return "".join(char for char in text if char not in _BIDI_MARKS)

    pairs: dict[str, list[str]] = {}
    for key, entries in confusables_data.items():
        others = pairs.setdefault(clean(key), [])
        others += [other for other in (clean(entry["c"]) for entry in entries) if other not in others]
    mapping = {}
    for char, others in pairs.items():
        if len(char) != 1 or len(others) != 1:
            continue  # a sequence, or a prototype of several
        other = others[0]
        if len(other) > 1 or len(pairs.get(other, ())) > 1:
            mapping[char] = other  # a source and its prototype
        elif min(char, other) != char:
            mapping[char] = other  # a pair: both read as the smaller
    # A prototype sequence may hold a character of such a pair: map it too (once is enough: the result is fixed).
    return {char: "".join(mapping.get(c, c) for c in target) for char, target in mapping.items()}


def _uts39(text: str) -> str:
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def _text(name: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", (name or "").replace("\u2019", "'")).split())


def skeleton(name: str) -> str:
    """UTS #39's skeleton of the name as written: NFD, each character to its prototype, NFD.

    Equal for "PauI" (a capital i, whose prototype is l) and "Paul", for "Аnna" (a Cyrillic А) and
    "Anna", for "B0B" and "BOB". Any text has one (a name kept from before these rules too); at
    most KEY_CHARS characters.
    """
    return _uts39(_text(name))[:KEY_CHARS]


def key(name: str) -> str:
    """The skeleton of the case-folded name (folded again after the skeleton, which makes some capitals):
    equal for names that differ only in case or look alike in lower case ("ANNA", "anna", "аnna";
    "b0b" and "Bob"). It depends on the case-folded name only, so it is the same for every case
    of a name. At most KEY_CHARS characters."""
    return _uts39(_uts39(_text(name).casefold()).casefold())[:KEY_CHARS]


def columns(name: str) -> dict[str, str]:
    """The columns of a user that follow from their name (the name itself and its two keys)."""
    return {"display_name": name, "name_key": key(name), "name_skeleton": skeleton(name)}


# --------------------------------------------------------------------------------------
# Names in the database


def holder(s: Session, name: str, user_id: int | None = None) -> User | None:
    """The other user whose name is this one in another case or looks like it (None: it is free for `user_id`)."""
    query = select(User).where(or_(User.name_key == key(name), User.name_skeleton == skeleton(name)))
    if user_id is not None:
        query = query.where(User.id != user_id)
    return s.scalars(query.order_by(User.id)).first()


def valid_name(s: Session, text: str, user_id: int | None = None) -> str:
    """A typed name that keeps every rule and is free for `user_id`, as pbem keeps it; or DisplayNameError."""
    name = normalize(text)
    other = holder(s, name, user_id)
    if other is not None:
        if other.display_name.casefold() == name.casefold():
            raise DisplayNameError(N_("The name %(name)s is taken; choose another."), name=name)
        raise DisplayNameError(N_("The name %(name)s looks like %(other)s, the name of another player; choose one "
                                  "that cannot be taken for it."), name=name, other=other.display_name)
    return name


def cleaned(text: str | None) -> str | None:
    """A proposal made into a name: characters a name cannot have become spaces, then cut to MAX_NAME."""
    if not text or "@" in text:  # an address as the display name: not a name
        return None
    kept = "".join(char if unicodedata.category(char)[0] in "LMN" or char in PUNCTUATION else " "
                   for char in unicodedata.normalize("NFKC", text.replace("\u2019", "'")))
    kept = " ".join(kept.split())[:MAX_NAME].strip(" -_.'") or None
    try:
        return normalize(kept) if kept else None
    except DisplayNameError:
        return None


def numbered(name: str, number: int) -> str:
    """`name` with a number after it ("Anna Schmidt 2"), cut so that it keeps MAX_NAME."""
    tail = f" {number}"
    return name[:MAX_NAME - len(tail)].rstrip() + tail


def propose(s: Session, *candidates: str | None, user_id: int | None = None) -> str:
    """The name of a user made without a typed one: the first candidate that can be made a name (a From
    display name, an address's local part), else FALLBACK; with the smallest number from 2 on after it
    when another user has it in any case or one that looks like it."""
    base = next((name for name in map(cleaned, candidates) if name), FALLBACK)
    if holder(s, base, user_id) is None:
        return base
    for digits in range(1, len(str(MAX_NUMBER))):
        # One query for the numbers of each length ("Anna 2" ... "Anna 9", then "Anna 10" ...): the keys that
        # begin as theirs do (each digit's key is one character); each name found free is checked in full.
        query = select(User.name_key).where(User.name_key.startswith(key(numbered(base, 10 ** digits - 1))[:-digits],
                                                                     autoescape=True))
        if user_id is not None:
            query = query.where(User.id != user_id)
        taken = set(s.scalars(query))
        for number in range(max(2, 10 ** (digits - 1)), min(10 ** digits, MAX_NUMBER)):
            name = numbered(base, number)
            if key(name) not in taken and holder(s, name, user_id) is None:
                return name
    raise DisplayNameError(N_("The name %(name)s is taken; choose another."), name=base)


def rename(s: Session, user: User, text: str) -> str:
    """Give the user a typed name (DisplayNameError if it breaks a rule or is taken), in the caller's
    transaction; their seats at open and running tables take it too. Returns the name kept."""
    name = valid_name(s, text, user.id)
    for column, value in columns(name).items():
        setattr(user, column, value)
    live = select(Game.id).where(Game.status.in_(_LIVE))
    s.execute(update(Seat).where(Seat.user_id == user.id, Seat.game_id.in_(live)).values(display_name=name))
    return name
