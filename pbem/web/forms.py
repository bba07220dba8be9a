"""The web forms (Flask-WTF: every form carries a CSRF token), including the game-creation
form that is built from a game's `rules.describe()["options"]`."""

from __future__ import annotations

import zoneinfo

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
    StringField,
    SubmitField,
)
from wtforms.validators import DataRequired, EqualTo, InputRequired, Length, NumberRange, Optional

from pbem import accounts
from pbem.games import TIMEOUT_POLICIES


class SignupForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=320)])
    display_name = StringField("Name shown to other players", validators=[DataRequired(), Length(max=80)])
    password = PasswordField("Password", validators=[DataRequired(), Length(accounts.MIN_PASSWORD,
                                                                             accounts.MAX_PASSWORD)])
    confirm = PasswordField("Password again", validators=[EqualTo("password", "The passwords differ.")])
    submit = SubmitField("Sign up")


class LoginForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=320)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=accounts.MAX_PASSWORD)])
    remember = BooleanField("Stay logged in")
    submit = SubmitField("Log in")


class ResetRequestForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=320)])
    submit = SubmitField("Send me a link")


class CompleteSignupForm(FlaskForm):
    """The page of the mailed sign-up link: the password chosen at sign-up, typed again."""

    password = PasswordField("The password you chose when signing up",
                             validators=[DataRequired(), Length(max=accounts.MAX_PASSWORD)])
    submit = SubmitField("Finish signing up")


class PasswordForm(FlaskForm):
    """Change the password on the settings page: the current one proves it is the owner."""

    current = PasswordField("Current password", validators=[DataRequired(), Length(max=accounts.MAX_PASSWORD)])
    password = PasswordField("New password", validators=[DataRequired(), Length(accounts.MIN_PASSWORD,
                                                                                 accounts.MAX_PASSWORD)])
    confirm = PasswordField("New password again", validators=[EqualTo("password", "The passwords differ.")])
    submit = SubmitField("Change the password")


class ResetForm(FlaskForm):
    password = PasswordField("New password", validators=[DataRequired(), Length(accounts.MIN_PASSWORD,
                                                                                 accounts.MAX_PASSWORD)])
    confirm = PasswordField("New password again", validators=[EqualTo("password", "The passwords differ.")])
    submit = SubmitField("Set password")


class ButtonForm(FlaskForm):
    """A form that is only a button (log out, join, leave, start, resign, resend): the CSRF token is the point."""

    submit = SubmitField("OK")


class SettingsForm(FlaskForm):
    display_name = StringField("Name shown to other players", validators=[DataRequired(), Length(max=80)])
    notify = SelectField("Mail me", choices=[SelectChoice("every", "after every move"),
                                             SelectChoice("turn", "when it is my turn"),
                                             SelectChoice("digest", "one digest a day"), SelectChoice("none", "never")])
    timezone = SelectField("Time zone", choices=[])
    from_check = BooleanField("Accept mailed moves only from my own address (recommended)")
    submit = SubmitField("Save")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.timezone.choices = [SelectChoice(zone) for zone in sorted(zoneinfo.available_timezones())]


class AbsenceForm(FlaskForm):
    starts = DateField("Away from (first day)", validators=[InputRequired()])
    ends = DateField("Back on (first day back)", validators=[InputRequired()])
    note = StringField("Note (optional)", validators=[Optional(), Length(max=200)])
    submit = SubmitField("Declare the absence")


class TokenForm(FlaskForm):
    name = StringField("Name of the bot", validators=[DataRequired(), Length(max=80)])
    submit = SubmitField("Create token")


ANY_COLOUR = "any"


def colour_choices(colours) -> list[SelectChoice]:
    """The choices of a colour select: any (whichever is left at the start), then the colours offered."""
    return [SelectChoice(ANY_COLOUR, "any (one of those left)")] + [SelectChoice(c, c) for c in colours]


class JoinForm(FlaskForm):
    """Take a seat, in one of the free colours or any; the service refuses a colour taken meanwhile."""

    colour = SelectField("Colour", choices=[], validate_choice=False, default=ANY_COLOUR)
    submit = SubmitField("Join")


class InviteForm(FlaskForm):
    email = EmailField("Invite by email", validators=[DataRequired(),
                                                      Length(max=320)])
    submit = SubmitField("Invite")


class MoveForm(FlaskForm):
    move = SelectField("Your move", choices=[], validate_choice=False)
    text = StringField("or type it", validators=[Optional(), Length(max=400)])
    expected_version = HiddenField(validators=[InputRequired()])
    key = HiddenField(validators=[InputRequired(), Length(8, 64)])
    submit = SubmitField("Play")


class UploadForm(FlaskForm):
    archive = FileField("Archive (.json)", validators=[FileRequired()])
    submit = SubmitField("Upload and replay")


POLICY_LABELS = {"wait": "wait (remind only)", "skip": "skip the turn", "random": "play a random legal move",
                 "resign": "resign the player"}


def create_form_for(describe: dict, formdata=None) -> FlaskForm:
    """The form to open a table of one game: seats, your colour, deadline, timeout policy and the game's options."""

    class CreateForm(FlaskForm):
        players = IntegerField("Seats", default=describe["min_players"], validators=[
            InputRequired(), NumberRange(describe["min_players"], describe["max_players"])])
        colour = SelectField("Your colour", choices=colour_choices(describe["colours"]), default=ANY_COLOUR)
        turn_hours = IntegerField("Hours per turn (empty: no deadline)",
                                  validators=[Optional(), NumberRange(1, 24 * 60)])
        timeout_policy = SelectField("When a deadline passes", choices=[
            SelectChoice(p, POLICY_LABELS.get(p, p)) for p in TIMEOUT_POLICIES])
        submit = SubmitField("Open the table")

    names = []
    for option in describe["options"]:
        name = "opt_" + option["name"]
        label = f"{option['name']}: {option['help']}"
        if option["type"] == "bool":
            field = BooleanField(label, default=option["default"])
        elif option["type"] == "choice":
            field = SelectField(label, choices=[SelectChoice(c) for c in option["choices"]], default=option["default"])
        else:
            field = IntegerField(label, default=option["default"], validators=[
                InputRequired(), NumberRange(option.get("minimum"), option.get("maximum"))])
        setattr(CreateForm, name, field)
        names.append((option["name"], name))
    form = CreateForm(formdata=formdata) if formdata is not None else CreateForm()
    form.option_fields = names
    return form


def options_from(form: FlaskForm) -> dict:
    return {option: form[field].data for option, field in form.option_fields}
