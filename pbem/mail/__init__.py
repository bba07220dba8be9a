"""Play by email: the three inbound doors, reply tokens, commands, and the outbox sender.

Nothing outside this package speaks SMTP or IMAP. Importing it loads no game service, so
pbem.notify (called from inside pbem.games) can use its outbox helpers.
"""
