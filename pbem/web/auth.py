"""Accounts on the web: sign up, confirm, log in and out, reset the password, settings, API tokens."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from urllib.parse import urlparse
from zoneinfo import ZoneInfo

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user

from pbem import accounts, config
from pbem.mail import addresses
from pbem.schedule import absences
from pbem.web import WebUser, get_db
from pbem.web.forms import (
    AbsenceForm,
    ButtonForm,
    LoginForm,
    ResetForm,
    ResetRequestForm,
    SettingsForm,
    SignupForm,
    TokenForm,
)

bp = Blueprint("auth", __name__)


def _secret() -> str:
    return current_app.config["SECRET_KEY"]


def _links() -> accounts.Links:
    return accounts.Links(current_app.config["BASE_URL"].rstrip("/"))


def _safe_next(target: str | None) -> str:
    """Only a local path is followed after login (no open redirect)."""
    if target and target.startswith("/") and not target.startswith("//") and not urlparse(target).netloc:
        return target
    return url_for("lobby.index")


@bp.route("/signup", methods=["GET", "POST"])
def signup():
    form = SignupForm()
    if form.validate_on_submit():
        try:
            accounts.sign_up(get_db(current_app), form.email.data, form.password.data, form.display_name.data,
                             _secret(), _links())
        except accounts.AccountError as error:
            form.email.errors = [str(error)]
        else:
            return render_template("message.html", title="Check your mail",
                                   message="We sent a link to confirm your address. Open it, then log in.")
    return render_template("signup.html", form=form), 400 if form.errors else 200


@bp.get("/verify/<token>")
def verify(token: str):
    try:
        accounts.verify_email(get_db(current_app), token, _secret())
    except accounts.AccountError as error:
        return render_template("error.html", message=str(error)), 400
    flash("Your address is confirmed. You can log in now.")
    return redirect(url_for("auth.login"))


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if form.validate_on_submit():
        try:
            user = accounts.authenticate(get_db(current_app), form.email.data, form.password.data)
        except accounts.AccountError as error:
            form.password.errors = [str(error)]
        else:
            session.clear()  # a fresh session for the new login (no fixation)
            login_user(WebUser(user), remember=form.remember.data)
            return redirect(_safe_next(request.args.get("next")))
    return render_template("login.html", form=form), 400 if form.errors else 200


@bp.post("/logout")
def logout():
    if ButtonForm().validate_on_submit():
        logout_user()
        session.clear()
    return redirect(url_for("lobby.index"))


@bp.route("/reset", methods=["GET", "POST"])
def reset_request():
    form = ResetRequestForm()
    if form.validate_on_submit():
        accounts.request_reset(get_db(current_app), form.email.data, _secret(), _links())
        return render_template("message.html", title="Check your mail",
                               message="If that address has an account, a link to set a new password is on its way.")
    return render_template("reset_request.html", form=form)


@bp.route("/reset/<token>", methods=["GET", "POST"])
def reset(token: str):
    form = ResetForm()
    if form.validate_on_submit():
        try:
            accounts.reset_password(get_db(current_app), token, form.password.data, _secret())
        except accounts.AccountError as error:
            return render_template("error.html", message=str(error)), 400
        flash("Your new password is set. Log in with it.")
        return redirect(url_for("auth.login"))
    return render_template("reset.html", form=form), 400 if form.errors else 200


@bp.route("/settings", methods=["GET", "POST"])
@login_required
def settings():
    db = get_db(current_app)
    user = accounts.get_user(db, current_user.id)
    form = SettingsForm(obj=None if request.method == "POST" else user)
    if form.validate_on_submit():
        try:
            accounts.update_settings(db, current_user.id, display_name=form.display_name.data,
                                     notify=form.notify.data, timezone=form.timezone.data,
                                     vacation_days=form.vacation_days.data, from_check=form.from_check.data)
        except accounts.AccountError as error:
            form.display_name.errors = [str(error)]
        else:
            flash("Settings saved.")
            return redirect(url_for("auth.settings"))
    tokens = accounts.list_api_tokens(db, current_user.id)
    with db.sessions() as s:  # notifications stopped after bounces, and when they are tried again
        mail = addresses.mail_status(s, user.email, timedelta(days=config.load().suppression_retry_days))
    return render_template("settings.html", form=form, user=user, tokens=tokens, token_form=TokenForm(),
                           absence_form=AbsenceForm(), absences=absences.current(db, current_user.id),
                           button=ButtonForm(), mail=mail), 400 if form.errors else 200


@bp.post("/settings/mail/resume")
@login_required
def resume_mail():
    """Send the notifications again that hard bounces stopped (the player says the address works)."""
    if ButtonForm().validate_on_submit():
        db = get_db(current_app)
        with db.transaction() as s:
            addresses.resume(s, accounts.get_user(db, current_user.id).email)
        flash("Mail to your address is on again.")
    return redirect(url_for("auth.settings"))


def _utc_midnight(day, zone: str) -> datetime:
    """The start of a calendar day in the user's time zone, as naive UTC (how times are stored)."""
    local = datetime.combine(day, time.min, tzinfo=ZoneInfo(zone))
    return local.astimezone(timezone.utc).replace(tzinfo=None)


@bp.post("/settings/absences")
@login_required
def declare_absence():
    form = AbsenceForm()
    if not form.validate_on_submit():
        flash("Give the first day away and the first day back.", "error")
        return redirect(url_for("auth.settings"))
    zone = current_user.timezone or "UTC"
    try:
        absences.declare(get_db(current_app), current_user.id, _utc_midnight(form.starts.data, zone),
                         _utc_midnight(form.ends.data, zone), form.note.data)
    except absences.AbsenceError as error:
        flash(str(error), "error")
    else:
        flash("Absence noted: your deadlines wait for you.")
    return redirect(url_for("auth.settings"))


@bp.post("/settings/absences/<id:absence_id>/end")
@login_required
def end_absence(absence_id: int):
    try:
        absences.end(get_db(current_app), current_user.id, absence_id)
    except absences.AbsenceError as error:
        flash(str(error), "error")
    else:
        flash("Absence ended.")
    return redirect(url_for("auth.settings"))


@bp.post("/settings/tokens")
@login_required
def create_token():
    form = TokenForm()
    if not form.validate_on_submit():
        flash("Give the token a name.")
        return redirect(url_for("auth.settings"))
    token = accounts.create_api_token(get_db(current_app), current_user.id, form.name.data)
    return render_template("message.html", title="Your new API token",
                           message="Copy it now: it is shown only once. Send it as 'Authorization: Bearer <token>'.",
                           code=token)


@bp.post("/settings/tokens/<id:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    if ButtonForm().validate_on_submit():
        if accounts.revoke_api_token(get_db(current_app), current_user.id, token_id):
            flash("Token revoked.")
        else:
            flash("You have no such token.")
    return redirect(url_for("auth.settings"))
