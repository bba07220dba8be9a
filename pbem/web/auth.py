"""Accounts on the web: sign up, confirm, log in and out, reset or change the password, settings,
sessions and API tokens.

A login starts a session row (`accounts.start_session`) whose key is what Flask-Login keeps
in the cookies; logging out deletes it. The doors that send mail or check passwords are
rate-limited (`pbem.web.ratelimit`); the owner of an account whose log-ins are throttled asks
for a log-in link (`/login/link`, offered on the throttled page), mailed to the account's
address, which logs in once without the password.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from urllib.parse import urlparse
from zoneinfo import ZoneInfo

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext, refresh
from flask_login import current_user, login_required, login_user, logout_user

import engine
from pbem import accounts, config, games, i18n
from pbem.accounts import names
from pbem.mail import addresses
from pbem.notify import webhooks
from pbem.players import ratings, volunteers
from pbem.schedule import absences
from pbem.web import WebUser, get_db, ratelimit, reason
from pbem.web.forms import (
    AbsenceForm,
    ButtonForm,
    CompleteSignupForm,
    LanguageForm,
    LoginForm,
    LoginLinkForm,
    PasswordForm,
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


def _log_in(user, remember: bool = False) -> None:
    """A new session row and fresh cookies for this browser (no session fixation); `remember`: stay logged in."""
    session.clear()
    key = accounts.start_session(get_db(current_app), user.id, request.headers.get("User-Agent", ""), remember)
    login_user(WebUser(user, key), remember=remember)
    refresh()  # the rest of this request speaks the account's language


@bp.route("/signup", methods=["GET", "POST"])
@ratelimit.limited(ratelimit.mail_requests)
def signup():
    form = SignupForm()
    if form.validate_on_submit():
        try:
            accounts.sign_up(get_db(current_app), form.email.data, form.password.data, form.display_name.data,
                             _secret(), _links(), language=i18n.best_match(request.headers.get("Accept-Language")))
        except names.DisplayNameError as error:  # beside the name field
            form.display_name.errors = [reason(error)]
        except accounts.AccountError as error:
            form.email.errors = [reason(error)]
        else:
            return render_template("message.html", title=gettext("Check your mail"),
                                   message=gettext("We sent a link to that address. Open it and type your password "
                                                   "again to finish signing up."))
    return render_template("signup.html", form=form), 400 if form.errors else 200


@bp.route("/verify/<token>", methods=["GET", "POST"])
@ratelimit.limited(ratelimit.signup_password)
def verify(token: str):
    """The mailed sign-up link: the password chosen at sign-up makes the account (and logs it in)."""
    db = get_db(current_app)
    try:
        address = accounts.signup_address(db, token, _secret())
    except accounts.AccountError as error:
        return render_template("error.html", message=reason(error)), 400
    form = CompleteSignupForm()
    if form.validate_on_submit():
        try:
            user_id = accounts.complete_sign_up(db, token, form.password.data, _secret())
        except accounts.AccountError as error:
            form.password.errors = [reason(error)]
        else:
            _log_in(accounts.get_user(db, user_id))
            flash(gettext("Your account is ready, and you are logged in."))
            return redirect(url_for("lobby.index"))
    return render_template("verify.html", form=form, address=address), 400 if form.errors else 200


@bp.route("/login", methods=["GET", "POST"])
@ratelimit.limited(ratelimit.login)
def login():
    form = LoginForm()
    if form.validate_on_submit():
        try:
            user = accounts.authenticate(get_db(current_app), form.email.data, form.password.data)
        except accounts.AccountError as error:
            form.password.errors = [reason(error)]
        else:
            _log_in(user, remember=form.remember.data)
            return redirect(_safe_next(request.args.get("next")))
    return render_template("login.html", form=form), 400 if form.errors else 200


@bp.route("/login/link", methods=["GET", "POST"])
@ratelimit.limited(ratelimit.login_links)
def login_link_request():
    """Ask for a log-in link: mailed to the address if it has an account, the same answer either way."""
    form = ResetRequestForm()
    if form.validate_on_submit():
        accounts.request_login_link(get_db(current_app), form.email.data, _secret(), _links())
        return render_template("message.html", title=gettext("Check your mail"),
                               message=gettext("If that address has an account with a password, a link that logs "
                                               "you in is on its way. It works once, for an hour."))
    return render_template("login_link_request.html", form=form)


@bp.route("/login/link/<token>", methods=["GET", "POST"])
def login_link(token: str):
    """The mailed log-in link: its page logs in with a button, so that a mail program opening it uses nothing."""
    db = get_db(current_app)
    try:
        address = accounts.login_link_address(db, token, _secret())
    except accounts.AccountError as error:
        return render_template("error.html", message=reason(error)), 400
    form = LoginLinkForm()
    if form.validate_on_submit():
        try:
            user = accounts.use_login_link(db, token, _secret())
        except accounts.AccountError as error:  # used by another request meanwhile
            return render_template("error.html", message=reason(error)), 400
        _log_in(user, remember=form.remember.data)
        flash(gettext("You are logged in."))
        return redirect(url_for("lobby.index"))
    return render_template("login_link.html", form=form, address=address)


@bp.post("/logout")
def logout():
    if ButtonForm().validate_on_submit():
        if current_user.is_authenticated:
            accounts.end_session(get_db(current_app), current_user.session_key)
        logout_user()
        session.clear()
    return redirect(url_for("lobby.index"))


@bp.route("/reset", methods=["GET", "POST"])
@ratelimit.limited(ratelimit.mail_requests)
def reset_request():
    form = ResetRequestForm()
    if form.validate_on_submit():
        accounts.request_reset(get_db(current_app), form.email.data, _secret(), _links())
        return render_template("message.html", title=gettext("Check your mail"),
                               message=gettext("If that address has an account, a link to set a new password is on "
                                               "its way."))
    return render_template("reset_request.html", form=form)


@bp.route("/reset/<token>", methods=["GET", "POST"])
def reset(token: str):
    form = ResetForm()
    if form.validate_on_submit():
        try:
            accounts.reset_password(get_db(current_app), token, form.password.data, _secret())
        except accounts.AccountError as error:
            return render_template("error.html", message=reason(error)), 400
        logout_user()  # this browser's session, like every other, has ended
        session.clear()
        flash(gettext("Your new password is set, and every login and API token you had has ended. Log in with it."))
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
                                     from_check=form.from_check.data)
        except accounts.AccountError as error:
            form.display_name.errors = [reason(error)]
        else:
            flash(gettext("Settings saved."))
            return redirect(url_for("auth.settings"))
    return _settings_page(db, user, form=form), 400 if form.errors else 200


@bp.post("/settings/language")
@login_required
def change_language():
    """The language of the pages (and, later, of the mails): one of pbem.i18n.LANGUAGES."""
    db = get_db(current_app)
    form = LanguageForm()
    if form.validate_on_submit():
        try:
            chosen = accounts.update_language(db, current_user.id, form.language.data)
        except accounts.AccountError as error:
            form.language.errors = [reason(error)]
        else:
            current_user.language = chosen
            refresh()  # this request's messages in the language just chosen
            flash(gettext("Language saved."))
            return redirect(url_for("auth.settings"))
    return _settings_page(db, accounts.get_user(db, current_user.id), language_form=form), 400


def _settings_page(db, user, **forms):
    forms.setdefault("form", SettingsForm(obj=user, formdata=None))
    forms.setdefault("language_form", LanguageForm(obj=user, formdata=None))
    forms.setdefault("password_form", PasswordForm(formdata=None))
    with db.sessions() as s:  # notifications stopped after bounces, and when they are tried again
        mail = addresses.mail_status(s, user.email, timedelta(days=config.load().suppression_retry_days))
    return render_template("settings.html", user=user, tokens=accounts.list_api_tokens(db, user.id),
                           sessions=accounts.list_sessions(db, user.id, current_user.session_key),
                           token_form=TokenForm(formdata=None), absence_form=AbsenceForm(formdata=None),
                           absences=absences.current(db, user.id), button=ButtonForm(), mail=mail,
                           ratings=_ratings(db, user.id), webhooks=webhooks.overview(db, user.id),
                           volunteer_titles=volunteers.titles_of(db, user.id), **forms)


def _ratings(db, user_id: int) -> list[dict]:
    """The user's ratings per title, each with the title's name as the site shows it."""
    known = set(engine.names())
    return [{**x, "name": engine.get(x["title"]).title if x["title"] in known else x["title"]}
            for x in ratings.of_user(db, user_id)]


@bp.post("/settings/volunteer")
@login_required
def volunteer():
    """The titles at which the player is offered, by mail, seats handed to a bot (issue 37 item 3): the boxes
    ticked; none ticked, none offered. A name that is no title is refused and nothing changes."""
    if ButtonForm().validate_on_submit():
        try:
            chosen = volunteers.set_titles(get_db(current_app), current_user.id, request.form.getlist("volunteer"))
        except games.GameError as error:
            flash(reason(error), "error")
        else:
            flash(gettext("You are offered seats to take over at: %(titles)s.",
                          titles=", ".join(engine.get(name).title for name in chosen)) if chosen else
                  gettext("You are offered no seats to take over."))
    return redirect(url_for("auth.settings") + "#seats-to-take-over"), 303


@bp.post("/settings/password")
@login_required
@ratelimit.limited(ratelimit.current_password)
def change_password():
    """A new password, given the current one: every other login of the account ends."""
    db = get_db(current_app)
    form = PasswordForm()
    if form.validate_on_submit():
        try:
            accounts.change_password(db, current_user.id, form.current.data, form.password.data,
                                     keep_session=current_user.session_key)
        except accounts.AccountError as error:
            form.current.errors = [reason(error)]
        else:
            flash(gettext("Password changed; every other login of yours has ended."))
            return redirect(url_for("auth.settings"))
    return _settings_page(db, accounts.get_user(db, current_user.id), password_form=form), 400


def _revoke(revoke, row_id: int, done: str, missing: str):
    """A settings button that ends one of the user's own sessions or tokens (the CSRF token checked)."""
    if ButtonForm().validate_on_submit():
        flash(done if revoke(get_db(current_app), current_user.id, row_id) else missing)
    return redirect(url_for("auth.settings"))


@bp.post("/settings/sessions/<id:session_id>/revoke")
@login_required
def revoke_session(session_id: int):
    return _revoke(accounts.revoke_session, session_id, gettext("That login has ended."),
                   gettext("You have no such login."))


@bp.post("/settings/mail/resume")
@login_required
def resume_mail():
    """Send the notifications again that hard bounces stopped (the player says the address works)."""
    if ButtonForm().validate_on_submit():
        db = get_db(current_app)
        with db.transaction() as s:
            addresses.resume(s, accounts.get_user(db, current_user.id).email)
        flash(gettext("Mail to your address is on again."))
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
        flash(gettext("Give the first day away and the first day back."), "error")
        return redirect(url_for("auth.settings"))
    zone = current_user.timezone or "UTC"
    try:
        absences.declare(get_db(current_app), current_user.id, _utc_midnight(form.starts.data, zone),
                         _utc_midnight(form.ends.data, zone), form.note.data)
    except absences.AbsenceError as error:
        flash(reason(error), "error")
    else:
        flash(gettext("Absence noted: your deadlines wait for you."))
    return redirect(url_for("auth.settings"))


@bp.post("/settings/absences/<id:absence_id>/end")
@login_required
def end_absence(absence_id: int):
    try:
        absences.end(get_db(current_app), current_user.id, absence_id)
    except absences.AbsenceError as error:
        flash(reason(error), "error")
    else:
        flash(gettext("Absence ended."))
    return redirect(url_for("auth.settings"))


@bp.post("/settings/webhooks")
@login_required
def add_webhook():
    """A chat webhook for the user's news (pbem.notify.webhooks): refused with the reason beside its field."""
    db = get_db(current_app)
    if not ButtonForm().validate_on_submit():  # the CSRF token (CSRFProtect refuses a wrong one before this)
        return redirect(url_for("auth.settings"))
    entered = {"url": request.form.get("url", ""), "format": request.form.get("format", ""),
               "kinds": request.form.getlist("kinds")}
    try:
        webhooks.add(db, current_user.id, entered["url"], entered["format"] or None, entered["kinds"])
    except webhooks.WebhookError as error:
        return _settings_page(db, accounts.get_user(db, current_user.id), webhook_entered=entered,
                              webhook_refusal={"field": error.field, "text": reason(error)}), 400
    flash(gettext("Webhook added: your news goes there too."))
    return redirect(url_for("auth.settings", _anchor="webhooks"))


@bp.post("/settings/webhooks/<id:webhook_id>/remove")
@login_required
def remove_webhook(webhook_id: int):
    return _revoke(webhooks.remove, webhook_id, gettext("Webhook removed."), gettext("You have no such webhook."))


@bp.post("/settings/tokens")
@login_required
def create_token():
    form = TokenForm()
    if not form.validate_on_submit():
        flash(gettext("Give the token a name."))
        return redirect(url_for("auth.settings"))
    token = accounts.create_api_token(get_db(current_app), current_user.id, form.name.data)
    return render_template("message.html", title=gettext("Your new API token"),
                           message=gettext("Copy it now: it is shown only once. Send it as "
                                           "'Authorization: Bearer <token>'."),
                           code=token)


@bp.post("/settings/tokens/<id:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    return _revoke(accounts.revoke_api_token, token_id, gettext("Token revoked."), gettext("You have no such token."))
