"""The web forms (Flask-WTF: every form carries a CSRF token), including the game-creation
form that is built from a game's `rules.describe()["options"]`.

Labels are translated when a page shows them: `lazy_gettext` at class level, `gettext` in
forms built per request. A game option's name and help are those its title's registry entry
gives (`engine.entry(title).option_labels`, `.option_help`: engine Messages, translated with
the `engine` catalogue); the engine's English help is only a fallback for an option without
them (docs/i18n.md).
"""

from __future__ import annotations

import zoneinfo
from functools import lru_cache

import wtforms.i18n
from flask_babel import get_locale, gettext, lazy_gettext
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    SelectChoice,
    EmailField,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectField,
    SelectMultipleField,
    StringField,
    SubmitField,
    TextAreaField,
)
from wtforms.validators import DataRequired, EqualTo, InputRequired, Length, NumberRange, Optional

import bots
import engine
from pbem import accounts, i18n
from pbem.accounts import names
from pbem.games import TIMEOUT_POLICIES
from pbem.games.tables import DEFAULT_BOT_LEVEL, DEFAULT_TURN_HOURS, MAX_REPLACE_AFTER, PRESS_MODES
from pbem.i18n import N_
from pbem.web import words


@lru_cache(maxsize=None)
def wtforms_messages(language: str):
    """WTForms' own messages ("This field is required.") in one language, read once per process."""
    try:
        return wtforms.i18n.get_translations([language])
    except OSError:  # WTForms has no catalogue of that language: its English
        return wtforms.i18n.DummyTranslations()


class Form(FlaskForm):
    """Every form of the site: Flask-WTF's CSRF token, WTForms' messages in the page's language.

    The messages come through WTForms' documented `Meta.get_translations`, from the catalogue kept
    per language (`wtforms_messages`); Flask-WTF's own reads it from disk again on every request
    that shows or checks a form (the CPU of a move by the game page's form: docs/web.md, "Benchmark").
    """

    class Meta:
        def get_translations(self, form):
            return wtforms_messages(str(get_locale() or i18n.DEFAULT))


# The rules of pbem.accounts.names, beside the name field; a name that breaks one is refused there with the reason.
NAME_HELP = lazy_gettext("%(least)d to %(most)d letters, digits, spaces and - _ . ' (not a name another player has, "
                         "nor one that looks like it)", least=names.MIN_NAME, most=names.MAX_NAME)


class SignupForm(Form):
    email = EmailField(lazy_gettext("Email"), validators=[DataRequired(), Length(max=320)])
    display_name = StringField(lazy_gettext("Name shown to other players"), validators=[DataRequired(), Length(max=80)],
                               description=NAME_HELP)
    password = PasswordField(lazy_gettext("Password"), validators=[DataRequired(), Length(accounts.MIN_PASSWORD,
                                                                             accounts.MAX_PASSWORD)])
    confirm = PasswordField(lazy_gettext("Password again"), validators=[EqualTo("password", lazy_gettext("The passwords differ."))])
    submit = SubmitField(lazy_gettext("Sign up"))


class LoginForm(Form):
    email = EmailField(lazy_gettext("Email"), validators=[DataRequired(), Length(max=320)])
    password = PasswordField(lazy_gettext("Password"), validators=[DataRequired(), Length(max=accounts.MAX_PASSWORD)])
    remember = BooleanField(lazy_gettext("Stay logged in"))
    submit = SubmitField(lazy_gettext("Log in"))


class ResetRequestForm(Form):
    email = EmailField(lazy_gettext("Email"), validators=[DataRequired(), Length(max=320)])
    submit = SubmitField(lazy_gettext("Send me a link"))


class LoginLinkForm(Form):
    """The page of a mailed log-in link: a button (a mail program that opens the link uses nothing up)."""

    remember = BooleanField(lazy_gettext("Stay logged in"))
    submit = SubmitField(lazy_gettext("Log in"))


class CompleteSignupForm(Form):
    """The page of the mailed sign-up link: the password chosen at sign-up, typed again."""

    password = PasswordField(lazy_gettext("The password you chose when signing up"),
                             validators=[DataRequired(), Length(max=accounts.MAX_PASSWORD)])
    submit = SubmitField(lazy_gettext("Finish signing up"))


class PasswordForm(Form):
    """Change the password on the settings page: the current one proves it is the owner."""

    current = PasswordField(lazy_gettext("Current password"), validators=[DataRequired(), Length(max=accounts.MAX_PASSWORD)])
    password = PasswordField(lazy_gettext("New password"), validators=[DataRequired(), Length(accounts.MIN_PASSWORD,
                                                                                 accounts.MAX_PASSWORD)])
    confirm = PasswordField(lazy_gettext("New password again"), validators=[EqualTo("password", lazy_gettext("The passwords differ."))])
    submit = SubmitField(lazy_gettext("Change the password"))


class ResetForm(Form):
    password = PasswordField(lazy_gettext("New password"), validators=[DataRequired(), Length(accounts.MIN_PASSWORD,
                                                                                 accounts.MAX_PASSWORD)])
    confirm = PasswordField(lazy_gettext("New password again"), validators=[EqualTo("password", lazy_gettext("The passwords differ."))])
    submit = SubmitField(lazy_gettext("Set password"))


class ButtonForm(Form):
    """A form that is only a button (log out, join, leave, start, resign, resend): the CSRF token is the point."""

    submit = SubmitField("OK")


class SettingsForm(Form):
    display_name = StringField(lazy_gettext("Name shown to other players"), validators=[DataRequired(), Length(max=80)],
                               description=NAME_HELP)
    notify = SelectField(lazy_gettext("Mail me"), choices=[
        SelectChoice("every", lazy_gettext("after every move")), SelectChoice("turn", lazy_gettext("when it is my turn")),
        SelectChoice("digest", lazy_gettext("one digest a day")), SelectChoice("none", lazy_gettext("never"))])
    timezone = SelectField(lazy_gettext("Time zone (deadlines are shown in it)"), choices=[], validate_choice=False,
                           validators=[DataRequired()])
    from_check = BooleanField(lazy_gettext("Accept mailed moves only from my own address (recommended)"))
    submit = SubmitField(lazy_gettext("Save"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.timezone.choices = zone_choices(self.timezone.data or getattr(kwargs.get("obj"), "timezone", None))


class LanguageForm(Form):
    """The language of the pages (and, later, the mails): each language by its own name."""

    language = SelectField(lazy_gettext("Language"), choices=[SelectChoice(code, i18n.NAMES[code])
                                                              for code in i18n.LANGUAGES], default=i18n.DEFAULT)
    submit = SubmitField(lazy_gettext("Save the language"))


# A short list of time zones by region (a city each that people know), not the 600 names of the tz database.
ZONES_BY_REGION = {
    "Europe": ["Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Amsterdam",
               "Europe/Brussels", "Europe/Madrid", "Europe/Rome", "Europe/Zurich", "Europe/Vienna", "Europe/Stockholm",
               "Europe/Oslo", "Europe/Copenhagen", "Europe/Warsaw", "Europe/Prague", "Europe/Budapest",
               "Europe/Athens", "Europe/Helsinki", "Europe/Kyiv", "Europe/Istanbul", "Europe/Moscow"],
    "Americas": ["America/St_Johns", "America/Halifax", "America/New_York", "America/Toronto", "America/Chicago",
                 "America/Mexico_City", "America/Denver", "America/Phoenix", "America/Los_Angeles",
                 "America/Vancouver", "America/Anchorage", "Pacific/Honolulu", "America/Bogota", "America/Lima",
                 "America/Caracas", "America/Santiago", "America/Buenos_Aires", "America/Sao_Paulo"],
    "Africa": ["Africa/Casablanca", "Africa/Lagos", "Africa/Cairo", "Africa/Johannesburg", "Africa/Nairobi"],
    "Asia": ["Asia/Dubai", "Asia/Tehran", "Asia/Karachi", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Dhaka",
             "Asia/Bangkok", "Asia/Jakarta", "Asia/Singapore", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Taipei",
             "Asia/Manila", "Asia/Seoul", "Asia/Tokyo", "Asia/Jerusalem", "Asia/Riyadh"],
    "Oceania": ["Australia/Perth", "Australia/Adelaide", "Australia/Brisbane", "Australia/Sydney",
                "Australia/Melbourne", "Pacific/Auckland", "Pacific/Fiji", "Pacific/Tongatapu", "Pacific/Tahiti"],
    "Universal": ["UTC"],
}
REGION_NAMES = {"Europe": lazy_gettext("Europe"), "Americas": lazy_gettext("Americas"), "Africa": lazy_gettext("Africa"),
                "Asia": lazy_gettext("Asia"), "Oceania": lazy_gettext("Oceania"),
                "Universal": lazy_gettext("Universal")}


def zone_label(zone: str) -> str:
    """'America/New_York' -> 'New York'; 'UTC' stays."""
    return zone.rsplit("/", 1)[-1].replace("_", " ")


def zone_choices(current: str | None = None) -> list[SelectChoice]:
    """The short list of time zones grouped by region, plus the user's own zone when it is not in it."""
    choices = [SelectChoice(zone, zone_label(zone), optgroup=str(REGION_NAMES[region]))
               for region, zones in ZONES_BY_REGION.items() for zone in zones]
    listed = {zone for zones in ZONES_BY_REGION.values() for zone in zones}
    if current and current not in listed and current in zoneinfo.available_timezones():
        choices.append(SelectChoice(current, current.replace("_", " "), optgroup=gettext("Yours")))
    return choices


class AbsenceForm(Form):
    starts = DateField(lazy_gettext("Away from (first day)"), validators=[InputRequired()])
    ends = DateField(lazy_gettext("Back on (first day back)"), validators=[InputRequired()])
    note = StringField(lazy_gettext("Note (optional)"), validators=[Optional(), Length(max=200)])
    submit = SubmitField(lazy_gettext("Declare the absence"))


class TokenForm(Form):
    name = StringField(lazy_gettext("Name of the bot"), validators=[DataRequired(), Length(max=80)])
    submit = SubmitField(lazy_gettext("Create token"))


ANY_COLOUR = "any"


def colour_choices(colours) -> list[SelectChoice]:
    """The choices of a colour select: any (whichever is left at the start), then the colours offered."""
    return [SelectChoice(ANY_COLOUR, gettext("any (one of those left)"))] + [SelectChoice(c, c) for c in colours]


class JoinForm(Form):
    """Take a seat, in one of the free colours or any; the service refuses a colour taken meanwhile."""

    colour = SelectField(lazy_gettext("Colour"), choices=[], validate_choice=False, default=ANY_COLOUR)
    submit = SubmitField(lazy_gettext("Join"))


class InviteForm(Form):
    email = EmailField(lazy_gettext("Invite by email"), validators=[DataRequired(),
                                                      Length(max=320)])
    submit = SubmitField(lazy_gettext("Invite"))


class MoveForm(Form):
    move = SelectField(lazy_gettext("Your move"), choices=[], validate_choice=False)
    text = StringField(lazy_gettext("or type it"), validators=[Optional(), Length(max=400)])
    expected_version = HiddenField(validators=[InputRequired()])
    key = HiddenField(validators=[InputRequired(), Length(8, 64)])
    submit = SubmitField(lazy_gettext("Play"))


class UploadForm(Form):
    archive = FileField(lazy_gettext("Archive (.json)"), validators=[FileRequired()])
    submit = SubmitField(lazy_gettext("Upload and replay"))


class MessageForm(Form):
    """A message to the table, or to the players ticked (pbem.talk checks the rest: press, bounds, seats)."""

    text = TextAreaField(lazy_gettext("Message"), validators=[DataRequired(), Length(max=4000)])
    to = SelectMultipleField(lazy_gettext("To"), choices=[], coerce=int, validate_choice=False)
    submit = SubmitField(lazy_gettext("Send"))


class NoteForm(Form):
    """A private note on the game, read by its author only."""

    text = TextAreaField(lazy_gettext("Note (only you can read it)"), validators=[DataRequired(), Length(max=4000)])
    submit = SubmitField(lazy_gettext("Keep the note"))


class ReportForm(Form):
    reason = StringField(lazy_gettext("Why"), validators=[DataRequired(), Length(max=500)])
    submit = SubmitField(lazy_gettext("Report"))


PRESS_LABELS = {"full": lazy_gettext("messages to the table and to some players"),
                "public": lazy_gettext("messages to the whole table only"), "none": lazy_gettext("no messages")}
POLICY_LABELS = {"wait": lazy_gettext("wait (remind only)"), "skip": lazy_gettext("skip the turn"),
                 "random": lazy_gettext("play a random legal move"), "resign": lazy_gettext("resign the player")}

def _entry(title: str) -> engine.Title | None:
    try:
        return engine.entry(title)
    except engine.UnknownGameError:
        return None


def option_label(title: str, option: dict) -> str:
    """How a person reads a game's option: its label in the title's registry entry, in the page's language,
    else written out from its name ("stars_to_win" -> "Stars to win")."""
    entry = _entry(title)
    label = entry.option_labels.get(option["name"]) if entry is not None else None
    return words(label) if label is not None else option["name"].replace("_", " ").capitalize()


def option_description(title: str, option: dict, options: list[dict]) -> str:
    """An option's help on the create form, in the page's language: the title's entry's, else the engine's own
    English help (`option_help`). The words of a choice's values ("normal", "free") stay as the engine names them."""
    entry = _entry(title)
    text = entry.option_help.get(option["name"]) if entry is not None else None
    return words(text) if text is not None else option_help(option, options)


def option_applies(option: dict, options: list[dict]) -> tuple[str, str] | None:
    """The (option, value) an option depends on, read from its help ("free mode: ..."), or None: it always applies.

    An option whose help starts with "<choice> <option>:" applies only when that choice option
    has that value (Tapaono's free-mode options apply in the free mode only).
    """
    head, _, rest = option["help"].partition(":")
    words = head.split()
    if not rest or len(words) != 2:
        return None
    value, name = words
    for other in options:
        if other["name"] == name and other["type"] == "choice" and value in other["choices"]:
            return name, value
    return None


def option_help(option: dict, options: list[dict]) -> str:
    """The option's help without the "free mode:" that the form shows by hiding the field instead."""
    text = option["help"].partition(":")[2].strip() if option_applies(option, options) else option["help"]
    return text[:1].upper() + text[1:]


def option_text(title: str, chosen: dict) -> list[str]:
    """A game's options as a person reads them in the lobby ("Game mode: free", "Double tile"), defaults left out."""
    try:
        described = engine.get(title).describe()["options"]
    except engine.UnknownGameError:
        return []
    out = []
    for option in described:
        value = chosen.get(option["name"], option["default"])
        depends = option_applies(option, described)
        if value == option["default"] or (depends and chosen.get(depends[0]) != depends[1]):
            continue
        label = option_label(title, option)
        if option["type"] == "bool":
            out.append(label if value else gettext("no %(option)s", option=f"{label[:1].lower()}{label[1:]}"))
        else:
            out.append(f"{label}: {value}")
    return out


# The bots' levels as the forms offer them, easiest first (bots.LEVELS), and what each is called on the page
# (issue 37: "play against bots" and the create form's abandoned-seat policy).
BOT_LEVEL_LABELS = {"easy": N_("Easy: thinks a moment"), "medium": N_("Medium: thinks longer"),
                    "hard": N_("Hard: plays to win")}


def bot_level_choices() -> list[SelectChoice]:
    """The bots' levels for a select, in the page's language."""
    return [SelectChoice(name, gettext(BOT_LEVEL_LABELS.get(name, name))) for name in bots.LEVELS]


def create_form_for(describe: dict, formdata=None) -> FlaskForm:
    """The form to open a table of one game: seats, your colour, deadline, timeout policy and the game's options.

    A title for a fixed number of players gets no seat field; an option that applies only
    with another option's value (Tapaono's free-mode options) carries that condition, so the
    page shows it only then, and `options_from` leaves it out otherwise.
    """
    fixed = describe["min_players"] == describe["max_players"]

    class CreateForm(FlaskForm):
        players = IntegerField(gettext("Players (%(least)d to %(most)d)", least=describe["min_players"],
                                       most=describe["max_players"]),
                               default=describe["min_players"],
                               validators=[InputRequired(), NumberRange(describe["min_players"], describe["max_players"])])
        colour = SelectField(gettext("Your colour"), choices=colour_choices(describe["colours"]), default=ANY_COLOUR)
        turn_hours = IntegerField(gettext("Hours per move (empty: no deadline)"), default=DEFAULT_TURN_HOURS,
                                  validators=[Optional(), NumberRange(1, 24 * 60)])
        timeout_policy = SelectField(gettext("When a deadline passes"), choices=[
            SelectChoice(p, str(POLICY_LABELS.get(p, p))) for p in TIMEOUT_POLICIES])
        press = SelectField(gettext("Table talk"), default="full", choices=[
            SelectChoice(p, str(PRESS_LABELS[p])) for p in PRESS_MODES])
        press_spectators = BooleanField(gettext("Spectators read the messages to the table"), default=False)
        press_after_end = BooleanField(gettext("The table may talk after the game ends"), default=True)
        press_late_blocked = BooleanField(gettext("A player past the deadline of their turn writes again only once "
                                                  "they have moved"), default=False)
        rated = BooleanField(gettext("Rated game"), default=False,
                             description=gettext("The result changes the players' ratings."))
        min_reliability = IntegerField(gettext("Least reliability to join, in percent (empty: anybody)"),
                                       validators=[Optional(), NumberRange(0, 100)],
                                       description=gettext("A player's reliability is the share of games they "
                                                           "finished times the share of their turns kept without a "
                                                           "missed deadline; a newcomer may join any table. You "
                                                           "need it too."))
        replace_after = IntegerField(gettext("Hand a seat to a bot after this many missed deadlines in a row "
                                             "(empty: never)"), validators=[Optional(), NumberRange(1, MAX_REPLACE_AFTER)],
                                     description=gettext("After that many missed deadlines in a row, or when "
                                                         "its player leaves, a bot plays the seat until a "
                                                         "replacement takes it. A table with this is not rated."))
        replace_level = SelectField(gettext("That bot's level"), default=DEFAULT_BOT_LEVEL, choices=bot_level_choices())
        submit = SubmitField(gettext("Open the table"))

    if fixed:
        CreateForm.players = HiddenField(default=str(describe["min_players"]), filters=[lambda v: int(v) if v else v],
                                         validators=[InputRequired(), NumberRange(describe["min_players"],
                                                                                  describe["max_players"])])
    names = []
    options = describe["options"]
    for option in options:
        name = "opt_" + option["name"]
        label = option_label(describe["name"], option)
        description = option_description(describe["name"], option, options)
        if option["type"] == "bool":
            field = BooleanField(label, default=option["default"], description=description)
        elif option["type"] == "choice":
            field = SelectField(label, choices=[SelectChoice(c) for c in option["choices"]], default=option["default"],
                                description=description)
        else:
            field = IntegerField(label, default=option["default"], description=description, validators=[
                InputRequired(), NumberRange(option.get("minimum"), option.get("maximum"))])
        setattr(CreateForm, name, field)
        names.append((option["name"], name, option_applies(option, options)))
    form = CreateForm(formdata=formdata) if formdata is not None else CreateForm()
    form.option_fields = names
    form.fixed_players = fixed
    return form


def options_from(form: FlaskForm) -> dict:
    """The options a create form sets: those that apply (the others keep the game's defaults)."""
    chosen = {option: form[field].data for option, field, _ in form.option_fields}
    return {option: chosen[option] for option, _, depends in form.option_fields
            if depends is None or chosen.get(depends[0]) == depends[1]}
