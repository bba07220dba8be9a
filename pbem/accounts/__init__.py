"""Accounts: who a user is, how they prove it, and what they chose.

- `errors`: `AccountError`, the refusal of the whole package;
- `names`: the rules for display names (normalised, unique, no look-alike of another's);
- `users`: the user row, its address and its settings (name, notifications, time zone,
  language);
- `invitations`: a player inviting someone to their open table by mail, within the limits;
- `passwords`: argon2 hashes, logging in, changing a password, and reset links;
- `signup`: a pending sign-up and its mailed link, the account made when the link is opened;
- `sessions`: web sessions (a row per logged-in browser) and one-time log-in links;
- `api_tokens`: bearer tokens for the JSON API;
- `links`: the signed tokens in the mails of the others, and the outbox rows that carry them.

The names below are the package's public face (`from pbem import accounts; accounts.sign_up(...)`).
A limit is read where it is defined: a test that changes one patches its module (`signup.SIGNUP_MAX_AGE`),
not this package's copy of the name.
"""

from pbem.accounts.api_tokens import (
    TOKEN_PREFIX, create_api_token, list_api_tokens, revoke_api_token, user_for_token,
)
from pbem.accounts.links import LINK_EXPIRED, LINK_INVALID, Links
from pbem.accounts.passwords import (
    MAX_PASSWORD, MIN_PASSWORD, RESET_MAX_AGE, RESET_REASONS, authenticate, change_password, check_password_rules,
    hash_password, request_reset, reset_password, use_hasher,
)
from pbem.accounts.sessions import (
    LOGIN_LINK_MAX_AGE, LOGIN_LINKS_PER_USER, MAX_SESSIONS, SESSION_MAX_IDLE, SESSION_MAX_IDLE_BROWSER,
    SESSION_TOUCH_S, USER_AGENT_CHARS, end_session, list_sessions, login_link_address, request_login_link,
    revoke_session, session_user, start_session, use_login_link,
)
from pbem.accounts.signup import (
    MAX_PENDING_SIGNUPS, QUOTED_NAME_CHARS, SIGNUP_MAX_AGE, complete_sign_up, quoted_name, sign_up, signup_address,
)
from pbem.accounts.users import (
    EMAIL_RE, NOTIFY_CHOICES, AccountError, ensure_user, get_or_create_user, get_user, normalize_email, set_language,
    update_language, update_settings,
)

__all__ = [
    "TOKEN_PREFIX", "create_api_token", "list_api_tokens", "revoke_api_token", "user_for_token",
    "LINK_EXPIRED", "LINK_INVALID", "Links",
    "MAX_PASSWORD", "MIN_PASSWORD", "RESET_MAX_AGE", "RESET_REASONS", "authenticate", "change_password",
    "check_password_rules", "hash_password", "request_reset", "reset_password", "use_hasher",
    "LOGIN_LINK_MAX_AGE", "LOGIN_LINKS_PER_USER", "MAX_SESSIONS", "SESSION_MAX_IDLE", "SESSION_MAX_IDLE_BROWSER",
    "SESSION_TOUCH_S", "USER_AGENT_CHARS", "end_session", "list_sessions", "login_link_address", "request_login_link",
    "revoke_session", "session_user", "start_session", "use_login_link",
    "MAX_PENDING_SIGNUPS", "QUOTED_NAME_CHARS", "SIGNUP_MAX_AGE", "complete_sign_up", "quoted_name", "sign_up",
    "signup_address",
    "EMAIL_RE", "NOTIFY_CHOICES", "AccountError", "ensure_user", "get_or_create_user", "get_user", "normalize_email",
    "set_language", "update_language", "update_settings",
]
